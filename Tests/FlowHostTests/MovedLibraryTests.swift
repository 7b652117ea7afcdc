import FlowKit
import FlowManifest
import Glibc
import HostSupport
import Testing

@testable import FlowHost

/// A manifest that lists its plugins, edited to move a loaded plugin to another library (`.build/debug` to
/// `.build/release`): the plugin is reloaded from there as a rebuild is, its services handed over. A fresh
/// slot for the new entry loaded a second copy beside the one whose services ran, and its managers took the
/// first copy's session for another type's.
@MainActor
struct MovedLibraryTests {
    @Test func aLoadedPluginMovedToAnotherBuildIsReloadedFromItWithItsServices() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let release = try lab.writeAnotherAuthBuild(as: "libAuthRelease.so")
        try lab.writeListingAuth(startingItsSession: true)
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeListingAuth(library: "libAuthRelease.so", startingItsSession: true)
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 1 route",
                "reloaded plugin 'auth': generation 2 from \(release); restarted services: auth.Session",
            ])
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
        #expect(host.registry.servingGeneration(of: "auth") == 2)
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
    }

    /// The same bytes at another file: the image loaded goes on, and nothing but the manifest is said.
    @Test func aLoadedPluginMovedToACopyOfItsLibraryGoesOnFromItsImage() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.add("libAuthPlugin.so", as: "libAuthCopy.so")
        try lab.writeListingAuth(startingItsSession: true)
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeListingAuth(library: "libAuthCopy.so", startingItsSession: true)
        host.reloadManifest()

        #expect(events.lines == ["reloaded manifest \(lab.manifestPath): 1 route"])
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
        #expect(host.statsLines.contains("  auth: loaded, 1 image"), "\(host.statsLines)")
    }

    /// Past the cap on generations, the move is refused as such a rebuild is, and the generation loaded keeps
    /// serving; the next one that fits is taken.
    @Test func aMovePastTheCapOnGenerationsIsRefusedAndTheLoadedGenerationServes() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let other = try lab.add("libGreeterPluginV2.so", as: "libOther.so")
        try lab.writeListingGreeter(routing: "greet", to: "Greeter")
        let host = try lab.host()
        host.registry.maxImagesPerPlugin = 1
        try #require(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host, watch: false)

        try lab.writeListingGreeter(routing: "greet", to: "Greeter", library: "libOther.so")
        host.reloadManifest()

        #expect(events.lines.count == 2, "\(events.lines)")
        #expect(
            events.lines.last?.hasPrefix("reload refused: \(other): plugin 'greeter' has been loaded 1 time") == true,
            "\(events.lines)")
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.registry.servingGeneration(of: "greeter") == 1)
        #expect(host.statsLines.contains("  greeter: loaded, 1 image"), "\(host.statsLines)")
    }
}

/// The same in a manifest that discovers its plugins: a library renamed in the directory, with other bytes or
/// the same, is the plugin at another library.
extension MovedLibraryTests {
    /// A pin of the bytes that serve, added to the entry, is met by the image loaded from them: it goes on, its
    /// services with it. A fresh slot loaded a second copy, which took the first copy's session for another
    /// type's.
    @Test func aPinOfTheBytesThatServeAddedToTheEntryKeepsTheImage() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.writeListingAuth(startingItsSession: true)
        let host = try lab.hostSignedIn()
        let pin = SHA256.hex(try BuildProducts.bytes(of: "libAuthPlugin.so"))

        try lab.writeListingAuth(startingItsSession: true, sha256: pin)
        host.reloadManifest()

        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
        #expect(host.statsLines.contains("  auth: loaded, 1 image"), "\(host.statsLines)")
    }

    /// A move to a file not there yet (the release build not made), in a manifest that lists its plugins:
    /// refused, the generation loaded keeps serving, and the file, watched from then on, is reloaded from once
    /// it lands.
    @Test(.timeLimit(.minutes(20)))
    func aMoveToAFileNotThereYetIsTakenWhenItLands() async throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.writeListingAuth(startingItsSession: true)
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.writeListingAuth(library: "libAuthRelease.so", startingItsSession: true)
        host.reloadManifest()
        let refused = try #require(events.lines.last)
        let serving = host.coordinator.requestCoordination("auth.signIn", from: .app)
        try host.coordinator.back()
        let release = try lab.writeAnotherAuthBuild(as: "libAuthRelease.so")
        var next = await events.next()
        while let event = next, !event.isReloaded { next = await events.next() }

        #expect(refused.hasPrefix("reload refused: "), "\(events.lines)")
        #expect(serving.isHandled, "\(serving)")
        let line = next?.description ?? ""
        #expect(line.hasPrefix("reloaded plugin 'auth': generation 2 from \(release) ("), "\(events.lines)")
        #expect(line.hasSuffix(" after the file landed); restarted services: auth.Session"), "\(events.lines)")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// A move saved while its build still writes the new file (its first 16 bytes there, a truncated ELF file): the
    /// file is tried again as a rebuild's is, no refusal is said, and the plugin is reloaded from it once it is
    /// whole. (The refusal of the incomplete file used to be said first.)
    @Test(.timeLimit(.minutes(20)))
    func aMoveToAFileStillBeingWrittenSaysNoRefusalAndIsTakenWhenWhole() async throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.writeListingAuth(startingItsSession: true)
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        let build = try BuildProducts.bytes(of: "libAuthPlugin.so") + [UInt8](repeating: 0, count: 16)
        let release = lab.plugins + "/libAuthRelease.so"
        let linker = open(release, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(linker >= 0)
        try #require(Glibc.write(linker, build, 16) == 16)

        try lab.writeListingAuth(library: "libAuthRelease.so", startingItsSession: true)
        host.reloadManifest()
        let rest = build.dropFirst(16)
        try #require(rest.withUnsafeBytes { Glibc.write(linker, $0.baseAddress, $0.count) } == rest.count)
        close(linker)
        var next = await events.next()
        while let event = next, !event.isReloaded { next = await events.next() }

        #expect(!events.lines.contains { $0.hasPrefix("reload refused: ") }, "\(events.lines)")
        let line = next?.description ?? ""
        #expect(line.hasPrefix("reloaded plugin 'auth': generation 2 from \(release)"), "\(events.lines)")
        #expect(line.hasSuffix("restarted services: auth.Session"), "\(events.lines)")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }
}

@MainActor
struct MovedDiscoveredLibraryTests {
    @Test func aDiscoveredPluginWhoseLibraryIsRenamedGoesOnFromItsImage() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)

        let renamed = try lab.add("libAuthPlugin.so", as: "libAuth2.so")
        try lab.remove("libAuthPlugin.so")
        host.reloadManifest()

        #expect(events.lines.last?.hasPrefix("discovered plugin 'auth' at \(renamed): ") == true, "\(events.lines)")
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
        #expect(host.statsLines.contains("  auth: loaded, 1 image"), "\(host.statsLines)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
    }

    @Test func aDiscoveredPluginWhoseLibraryIsReplacedByAnotherBuildUnderAnotherNameIsReloaded() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)

        let other = try lab.writeAnotherAuthBuild(as: "libAuth2.so")
        try lab.remove("libAuthPlugin.so")
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 3 routes",
                "reloaded plugin 'auth': generation 2 from \(other); restarted services: auth.Session",
            ])
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
        #expect(host.registry.servingGeneration(of: "auth") == 2)
    }

    /// Removed, then back under another name with another build: said discovered, its routes live again, and
    /// reloaded from the new file, whose service starts.
    @Test func aDiscoveredPluginBackUnderAnotherNameAfterItsRemovalIsSaidAndLoadedFromThere() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let host = try lab.hostSignedIn()
        try lab.remove("libAuthPlugin.so")
        host.reloadManifest()
        try #require(host.runningServices.isEmpty)
        let events = try HostEventCollector(host, watch: false)

        let other = try lab.writeAnotherAuthBuild(as: "libAuth2.so")
        host.reloadManifest()

        #expect(events.lines.count == 3, "\(events.lines)")
        #expect(
            events.lines.dropFirst().first?.hasPrefix("discovered plugin 'auth' at \(other): ") == true,
            "\(events.lines)")
        #expect(events.lines.last == "reloaded plugin 'auth': generation 2 from \(other)", "\(events.lines)")
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
    }

    /// A new build dropped in beside the old one, found first: the plugin is at the new file and is said
    /// reloaded once, though the composition has it twice (the old file overridden).
    @Test func aNewBuildDroppedInBesideTheOldIsReloadedFromItOnce() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)

        let other = try lab.writeAnotherAuthBuild(as: "libAuth2.so")
        host.reloadManifest()

        let reloads = events.lines.filter { $0.hasPrefix("reloaded plugin") }
        #expect(reloads == ["reloaded plugin 'auth': generation 2 from \(other); restarted services: auth.Session"])
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// Removed, then back under another name past the cap on generations, as the watch sees it land: refused
    /// once, not again by the discovery that follows.
    @Test func aRemovedPluginBackPastTheCapIsRefusedOnce() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let host = try lab.hostSignedIn()
        host.registry.maxImagesPerPlugin = 1
        try lab.remove("libAuthPlugin.so")
        host.reloadManifest()
        let events = try HostEventCollector(host, watch: false)

        let other = try lab.writeAnotherAuthBuild(as: "libAuth2.so")
        host.changed(other, landedAt: .now)

        let refusals = events.lines.filter { $0.hasPrefix("reload refused: ") }
        #expect(refusals.count == 1, "\(events.lines)")
        #expect(host.stats.refusedReloads == 1)
    }

    /// A manifest that discovers, whose `plugins` lists auth, edited to list it at a file not there yet:
    /// discovery refuses it meanwhile, and the file, watched, brings it in once it lands.
    @Test(.timeLimit(.minutes(20)))
    func aListedEntryMovedToAFileNotThereYetIsTakenWhenItLands() async throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.writeManifest(members: #""plugins": {"auth": "plugins.d/libAuthPlugin.so"}"#)
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        // Outside the discovered directory, which is watched whole.
        try #require(mkdir(lab.directory.path + "/release", 0o755) == 0)
        try lab.writeManifest(members: #""plugins": {"auth": "release/libAuthPlugin.so"}"#)
        _ = try #require(await events.next())
        _ = try lab.directory.file(
            "release/libAuthPlugin.so",
            containing: try BuildProducts.bytes(of: "libAuthPlugin.so") + [UInt8](repeating: 0, count: 16))
        var next = await events.next()
        while let event = next, event.dropIn?.hasPrefix("discovered auth") != true { next = await events.next() }

        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome) \(events.lines)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
    }
}

extension DropInLab {
    /// The lab's host, auth's session started by a handled `auth.signIn`, and back on the screen before it.
    fileprivate func hostSignedIn() throws -> Host {
        let host = try host()
        try #require(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
        try host.coordinator.back()
        return host
    }

    /// Another build of auth, the same plugin in other bytes, written as `name`; its path.
    fileprivate func writeAnotherAuthBuild(as name: String) throws -> String {
        try write(try BuildProducts.bytes(of: "libAuthPlugin.so") + [UInt8](repeating: 0, count: 16), as: name)
    }
}
