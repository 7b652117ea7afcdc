import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading
import Testing

@testable import FlowHost

/// A manifest that lists its plugins, edited to move a loaded plugin to another library (`.build/debug` to
/// `.build/release`): the plugin is reloaded from there as a rebuild is, its services handed over. A fresh
/// slot for the new entry loaded a second copy beside the one whose services ran, and its managers took the
/// first copy's session for another type's.
@MainActor
struct MovedLibraryTests {
    @Test func aLoadedPluginMovedToAnotherBuildIsReloadedFromItWithItsServices() throws {
        let lab = try DropInLab.listingAuth()
        let release = try lab.writeAnotherAuthBuild(as: "libAuthRelease.so")
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
        let lab = try DropInLab.listingAuth()
        try lab.add("libAuthPlugin.so", as: "libAuthCopy.so")
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
        let lab = try DropInLab.listingAuth()
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
        let lab = try DropInLab.listingAuth()
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.writeListingAuth(library: "libAuthRelease.so", startingItsSession: true)
        host.reloadManifest()
        let refused = try #require(events.lines.last)
        let serving = host.coordinator.requestCoordination("auth.signIn", from: .app)
        try host.coordinator.back()
        let release = try lab.writeAnotherAuthBuild(as: "libAuthRelease.so")
        let next = await events.nextReload()

        #expect(refused.hasPrefix("reload refused: "), "\(events.lines)")
        #expect(serving.isHandled, "\(serving)")
        let line = next?.description ?? ""
        #expect(line.hasPrefix("reloaded plugin 'auth': generation 2 from \(release)"), "\(events.lines)")
        #expect(line.hasSuffix(" after the file landed); restarted services: auth.Session"), "\(events.lines)")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// A move saved while its build still writes the new file (its first 16 bytes there, a truncated ELF file): the
    /// file is tried again as a rebuild's is, no refusal is said, and the plugin is reloaded from it once it is
    /// whole. (The refusal of the incomplete file used to be said first.)
    @Test(.timeLimit(.minutes(20)))
    func aMoveToAFileStillBeingWrittenSaysNoRefusalAndIsTakenWhenWhole() async throws {
        let lab = try DropInLab.listingAuth()
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        let release = lab.plugins + "/libAuthRelease.so"
        var build = try BuildBeingWritten(at: release)

        try lab.writeListingAuth(library: "libAuthRelease.so", startingItsSession: true)
        host.reloadManifest()
        try build.finish()
        let next = await events.nextReload()

        #expect(!events.lines.contains { $0.hasPrefix("reload refused: ") }, "\(events.lines)")
        let line = next?.description ?? ""
        #expect(line.hasPrefix("reloaded plugin 'auth': generation 2 from \(release)"), "\(events.lines)")
        #expect(line.hasSuffix("restarted services: auth.Session"), "\(events.lines)")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// A rebuild still being written when a manifest edit drops its plugin: the tries of the file stop there,
    /// and the plugin, out of use, is neither reloaded once the file is whole nor said refused. (The tries went
    /// on, and reloaded it.)
    @Test(.timeLimit(.minutes(20)))
    func aRebuildStillBeingWrittenIsNotTakenOnceAnEditDropsItsPlugin() async throws {
        let lab = try DropInLab.listingAuth()
        let library = lab.plugins + "/libAuthPlugin.so"
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)
        var build = try BuildBeingWritten(at: library)
        host.reloadWhenComplete("auth", landedAt: .now)

        _ = try lab.directory.file("app.json", containing: #"{"manifestVersion": 1, "plugins": {}, "routes": []}"#)
        host.reloadManifest()
        try build.finish()
        try await Task.sleep(for: Host.retryDelays.reduce(.zero, +) + .milliseconds(500))

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 0 routes; removed route: auth.signIn; services changed: restart"
                    + " flowhost to start or stop them"
            ])
        #expect(host.registry.servingGeneration(of: "auth") == 1)
        #expect(host.outOfUse("auth") != nil)
    }
}

extension MovedLibraryTests {
    /// A manifest that lists its plugins, edited to drop one, then to list it again after its file was rebuilt,
    /// with a route to a manager only the new build exports: the edit is judged against the file, and the
    /// plugin is loaded from it. The edit was refused against the image loaded before the plugin was dropped
    /// (`exports no manager 'Farewell'`), and an edit without the route kept that image serving.
    @Test func aPluginListedAgainAfterARebuildIsJudgedAndLoadedFromItsFile() throws {
        let lab = try DropInLab()
        let library = lab.plugins + "/libGreeter.so"
        let (host, events) = try lab.hostThatDroppedGreeter()
        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")

        try lab.writeListingGreeter(routing: "bye", to: "Farewell")
        host.reloadManifest()

        #expect(
            events.lines.dropFirst().first?.hasPrefix("reloaded manifest \(lab.manifestPath): 1 route") == true,
            "\(events.lines)")
        #expect(
            events.lines.last?.hasPrefix("reloaded plugin 'greeter': generation 2 from \(library)") == true,
            "\(events.lines)")
        let bye = host.coordinator.requestCoordination("bye", from: .app)
        #expect(bye.isHandled, "\(bye)")
    }

    /// The same under `--trust`, where nothing may probe the file: the edit is judged against the image loaded
    /// before, as before it was dropped, and refused when that image lacks the manager, rather than taken unchecked
    /// and its route failing when used.
    @Test func aPluginListedAgainUnderTrustIsJudgedAgainstItsImage() throws {
        let lab = try DropInLab()
        let (host, events) = try lab.hostThatDroppedGreeter(trusting: true)

        try lab.writeListingGreeter(routing: "bye", to: "Farewell")
        host.reloadManifest()

        #expect(events.lines.last?.hasPrefix("manifest edit rejected") == true, "\(events.lines)")
        #expect(events.lines.last?.contains("exports no manager 'Farewell'") == true, "\(events.lines)")
    }

    /// Under `--trust` again, but the file rebuilt meanwhile: the image no longer holds its bytes, so the edit is
    /// taken unchecked (as `--trust` takes a manifest at the start) and the plugin loaded from the file.
    @Test func aPluginListedAgainUnderTrustAfterARebuildIsLoadedFromItsFile() throws {
        let lab = try DropInLab()
        let (host, events) = try lab.hostThatDroppedGreeter(trusting: true)
        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")

        try lab.writeListingGreeter(routing: "bye", to: "Farewell")
        host.reloadManifest()

        #expect(
            events.lines.last?.hasPrefix("reloaded plugin 'greeter': generation 2 from ") == true, "\(events.lines)")
        let bye = host.coordinator.requestCoordination("bye", from: .app)
        #expect(bye.isHandled, "\(bye) \(events.lines)")
    }
}

extension DropInLab {
    /// The host of a manifest that lists greeter (V1, `plugins.d/libGreeter.so`, routing `greet`), greeter loaded
    /// by a handled `greet`, then edited to drop it; the host's events from before the edit. `trusting`: a host
    /// that may probe nothing, as `--trust` makes it.
    func hostThatDroppedGreeter(trusting: Bool = false) throws -> (Host, HostEventCollector) {
        try add("libGreeterPluginV1.so", as: "libGreeter.so")
        try writeListingGreeter(routing: "greet", to: "Greeter")
        let host: Host
        if trusting {
            let manifest = try manifest()
            host = Host(manifest: manifest, searchPath: PluginSearchPath(manifest.pluginPath), prober: nil)
            host.start()
        } else {
            host = try self.host()
        }
        try #require(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host, watch: false)
        _ = try directory.file("app.json", containing: #"{"manifestVersion": 1, "plugins": {}, "routes": []}"#)
        host.reloadManifest()
        return (host, events)
    }
}
