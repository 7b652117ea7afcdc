import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading
import Testing

@testable import FlowHost

/// A manifest that discovers plugins, whose plugin moves to another library: renamed or replaced in its directory,
/// or, listed in its `plugins`, moved by an edit (to a file still being written, too), or listed again.
@MainActor
struct MovedDiscoveredLibraryTests {
    /// In a manifest that discovers, a plugin it lists, dropped by an edit, rebuilt, then listed again: it is
    /// loaded from its file before its routes go live. It left the composition when dropped, so nothing took it
    /// for back, and the image loaded before served the new build's routes (`exports no manager 'Farewell'`).
    @Test func aPluginListedAgainInAManifestThatDiscoversIsLoadedFromItsFile() throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "lib/libGreeter.so"}"#)
        try #require(mkdir(lab.directory.path + "/lib", 0o755) == 0)
        let library = try lab.directory.file(
            "lib/libGreeter.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host, watch: false)
        try lab.writeManifest(members: "")
        host.reloadManifest()
        let staging = try lab.directory.file(
            ".staging.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        try #require(rename(staging, library) == 0)

        try lab.writeManifest(members: #""plugins": {"greeter": "lib/libGreeter.so"}"#)
        host.reloadManifest()

        #expect(
            events.lines.last?.hasPrefix("reloaded plugin 'greeter': generation 2 from ") == true, "\(events.lines)")
        let bye = host.coordinator.requestCoordination("bye", from: .app)
        #expect(bye.isHandled, "\(bye) \(events.lines)")
    }

    /// The same plugin listed again by the edit that makes a listing manifest one that discovers.
    @Test func aPluginListedAgainByAnEditToDiscoverIsLoadedFromItsFile() throws {
        let lab = try DropInLab()
        let (host, events) = try lab.hostThatDroppedGreeter()
        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")
        try #require(mkdir(lab.directory.path + "/other", 0o755) == 0)

        _ = try lab.directory.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "pluginPath": ["plugins.d"], "discover": ["other"], "#
                + #""plugins": {"greeter": "libGreeter.so"}}"#)
        host.reloadManifest()

        let bye = host.coordinator.requestCoordination("bye", from: .app)
        #expect(bye.isHandled, "\(bye) \(events.lines)")
    }

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

    /// In a manifest that discovers, an edit moving a listed plugin to a file its build is still writing: the
    /// build that serves goes on, with its services, and the plugin is reloaded from the new file once it is
    /// whole, its session handed over. The truncated file was refused at once, its services stopped, and the
    /// plugins that require it refused with it, their services started afresh once it was whole.
    @Test(.timeLimit(.minutes(20)))
    func aListedPluginMovedToAFileStillBeingWrittenServesUntilItIsWhole() async throws {
        let (lab, _) = try DropInLab.listingAuthInDebug()
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        let release = lab.directory.path + "/release/libAuthPlugin.so"
        var build = try BuildBeingWritten(at: release)

        try lab.writeManifest(members: #""plugins": {"auth": "release/libAuthPlugin.so"}"#)
        host.reloadManifest()
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        try build.finish()
        let reload = await events.nextReload()

        #expect(events.lines.count == 2, "\(events.lines)")
        #expect(events.lines.first?.hasPrefix("reloaded manifest \(lab.manifestPath): ") == true, "\(events.lines)")
        let line = reload?.description ?? ""
        #expect(line.hasPrefix("reloaded plugin 'auth': generation 2 from \(release)"), "\(events.lines)")
        #expect(line.hasSuffix("restarted services: auth.Session"), "\(events.lines)")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// A discovered plugin that an edit lists at a file its build is still writing: as a listed one moved there,
    /// it goes on serving, with its services and what they keep, and is reloaded from the file once it is whole.
    /// It was refused at once, its routes unrouted and its services stopped until the file was whole.
    @Test(.timeLimit(.minutes(20)))
    func aDiscoveredPluginListedAtAFileStillBeingWrittenServesUntilItIsWhole() async throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try #require(mkdir(lab.directory.path + "/release", 0o755) == 0)
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        let release = lab.directory.path + "/release/libAuthPlugin.so"
        var build = try BuildBeingWritten(at: release)

        try lab.writeManifest(members: #""plugins": {"auth": "release/libAuthPlugin.so"}"#)
        host.reloadManifest()
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"], "\(events.lines)")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled, "\(events.lines)")
        try host.coordinator.back()
        try build.finish()
        let reload = await events.nextReload()

        let line = reload?.description ?? ""
        #expect(line.hasPrefix("reloaded plugin 'auth': generation 2 from \(release)"), "\(events.lines)")
        #expect(line.hasSuffix("restarted services: auth.Session"), "\(events.lines)")
        #expect(!events.lines.contains { $0.contains("truncated") }, "\(events.lines)")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// A discovered plugin that an edit lists at a file that is not there: refused, its routes fail saying why.
    /// They went unrouted (`no route handles auth.signIn`), its declarations gone with the discovered copy.
    @Test func aDiscoveredPluginListedAtAMissingFileFailsItsRoutesWithWhy() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let host = try lab.hostSignedIn()

        try lab.writeManifest(members: #""plugins": {"auth": "release/libAuthPlugin.so"}"#)
        host.reloadManifest()

        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        guard case .failed(let error) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(error.message.contains("release/libAuthPlugin.so"), "\(error.message)")
    }

    /// The same move, by an edit that also has the manifest start a service of the plugin: it starts from the
    /// build that serves, as when the reload is refused, and is handed over to the new one. It never started:
    /// with no reload said at the edit, the adoption skipped what starts the services an edit adds.
    @Test(.timeLimit(.minutes(20)))
    func aServiceTheEditAddsToAPluginMovedToAFileStillBeingWrittenStarts() async throws {
        let lab = try DropInLab(members: #""plugins": {"trip": "debug/libTripPlugin.so"}"#)
        for directory in ["debug", "release"] { try #require(mkdir(lab.directory.path + "/" + directory, 0o755) == 0) }
        let trip = try BuildProducts.bytes(of: "libTripPlugin.so")
        _ = try lab.directory.file("debug/libTripPlugin.so", containing: trip)
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        try #require(host.coordinator.requestCoordination("trip.list", from: .app).isHandled)
        let release = lab.directory.path + "/release/libTripPlugin.so"
        var build = try BuildBeingWritten(at: release, bytes: trip + [UInt8](repeating: 0, count: 16))

        try lab.writeManifest(
            members: #""plugins": {"trip": "release/libTripPlugin.so"}, "services": [{"plugin": "trip", "#
                + #""service": "Bookings"}]"#)
        host.reloadManifest()
        #expect(host.runningServices.map(\.ref.reportedName) == ["trip.Bookings"], "\(events.lines)")
        try build.finish()
        let reload = await events.nextReload()

        #expect(reload?.description.hasSuffix("restarted services: trip.Bookings") == true, "\(events.lines)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["trip.Bookings"], "\(events.lines)")
        #expect(host.registry.servingGeneration(of: "trip") == 2)
    }

    /// A listed plugin whose file a build is still writing, tried again meanwhile, moved by an edit to a whole
    /// file whose reload is refused (past the cap): refused once. The tries of the old file went on, reloading
    /// from the new entry, and said the refusal again.
    @Test(.timeLimit(.minutes(20)))
    func anEditMovingAPluginStopsTheTriesOfItsOldFile() async throws {
        let (lab, debug) = try DropInLab.listingAuthInDebug()
        _ = try lab.directory.file("release/libAuthPlugin.so", containing: try BuildBeingWritten.anotherAuthBuild())
        let host = try lab.hostSignedIn()
        host.registry.maxImagesPerPlugin = 1
        let events = try HostEventCollector(host)
        defer { host.stop() }
        // Renamed over the loaded file, whose image stays mapped: written in place, it would be cut under it.
        let staging = lab.directory.path + "/debug/.libAuthPlugin.so.tmp"
        let build = try BuildBeingWritten(at: staging)
        close(build.descriptor)
        try #require(rename(staging, debug) == 0)
        host.changed(debug, landedAt: .now)
        // Its first try finds it incomplete; the next is 50 ms later.
        try await Task.sleep(for: .milliseconds(10))

        try lab.writeManifest(members: #""plugins": {"auth": "release/libAuthPlugin.so"}"#)
        host.reloadManifest()
        try await Task.sleep(for: .seconds(1))

        let refusals = events.lines.filter { $0.hasPrefix("reload refused: ") }
        #expect(refusals.count == 1, "\(events.lines)")
        #expect(host.stats.refusedReloads == 1)
    }

    /// The same move in a host that does not watch: the reload is refused at once, in one line, and the build
    /// that serves goes on with its services.
    @Test func aListedPluginMovedToATruncatedFileWithoutAWatchKeepsServing() throws {
        let (lab, _) = try DropInLab.listingAuthInDebug()
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)
        let build = try BuildBeingWritten(at: lab.directory.path + "/release/libAuthPlugin.so")
        defer { close(build.descriptor) }

        try lab.writeManifest(members: #""plugins": {"auth": "release/libAuthPlugin.so"}"#)
        host.reloadManifest()

        #expect(events.lines.count == 2, "\(events.lines)")
        #expect(events.lines.last?.hasPrefix("reload refused: ") == true, "\(events.lines)")
        #expect(events.lines.last?.contains("is truncated: 16 bytes") == true, "\(events.lines)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// A plugin listed again whose services the manifest starts: they start again. A plugin that left the
    /// composition when dropped matched no case of the adoption, and its services stayed stopped.
    @Test func aPluginListedAgainInAManifestThatDiscoversStartsItsServices() throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "lib/libAuthPlugin.so"}"#)
        try #require(mkdir(lab.directory.path + "/lib", 0o755) == 0)
        _ = try lab.directory.file("lib/libAuthPlugin.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.hostSignedIn()
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        try lab.writeManifest(members: "")
        host.reloadManifest()
        #expect(host.runningServices.isEmpty)

        try lab.writeManifest(members: #""plugins": {"auth": "lib/libAuthPlugin.so"}"#)
        host.reloadManifest()

        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// A discovered plugin removed, then back rebuilt, with a manifest reload (not a watched change) reading
    /// discovery both times: it is loaded from the file now there. Only a watched change reloaded it; the
    /// reload of the manifest said its routes went live while the image loaded before served them.
    @Test func aDiscoveredPluginBackRebuiltIsLoadedFromItsFileByAManifestReload() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host, watch: false)
        try lab.remove("libGreeter.so")
        host.reloadManifest()
        #expect(host.outOfUse("greeter") != nil, "\(events.lines)")

        try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        host.reloadManifest()

        #expect(
            events.lines.last?.hasPrefix("reloaded plugin 'greeter': generation 2 from ") == true, "\(events.lines)")
        let bye = host.coordinator.requestCoordination("bye", from: .app)
        #expect(bye.isHandled, "\(bye) \(events.lines)")
    }
}
