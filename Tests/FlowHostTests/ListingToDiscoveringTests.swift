import FlowKit
import FlowManifest
import Glibc
import Testing

@testable import FlowHost

/// A running host whose manifest lists its plugins, edited to discover them: the plugins the edit brings in
/// are said and their services start, as those a discovering manifest gains are; and an edit held for a plugin
/// not there yet is taken when that plugin lands in the edit's directory, which is watched meanwhile.
@MainActor
struct ListingToDiscoveringTests {
    @Test func thePluginsAnEditToDiscoverBringsInAreSaidAndTheirServicesStart() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let auth = try lab.add("libAuthPlugin.so")
        try lab.writeListingGreeter(routing: "greet", to: "Greeter")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        try #require(host.runningServices.isEmpty)

        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 4 routes",
                "discovered plugin 'auth' at \(auth): routes auth.signIn, auth.signIn from settings, auth.signOut go "
                    + "live; started services: auth.Session",
            ])
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
    }

    /// The auth plugin listed, its Session service running; the edit discovers the same library. A fresh slot
    /// for its entry (now the path discovery found) loaded a second copy of it, whose SignIn manager took the
    /// first copy's session for another type's and failed.
    @Test func aListedPluginThatServedGoesOnFromItsImageWhenTheEditDiscoversTheSameLibrary() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.writeListingAuth(startingItsSession: true)
        let host = try lab.host()
        try #require(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
        try host.coordinator.back()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 3 routes; added routes: auth.signIn from settings, auth.signOut"
            ])
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
        #expect(host.statsLines.contains("  auth: loaded, 1 image"), "\(host.statsLines)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
    }

    /// Settings, which the edit brings in, requires auth, which the manifest listed without its service: auth's
    /// service starts first, as the composition orders them, and settings' line names its own.
    @Test func theServicesAListedPluginAsksToStartStartOnceItIsDiscoveredInTheCompositionsOrder() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let settings = try lab.add("libSettingsPlugin.so")
        try lab.writeListingAuth()
        let host = try lab.host()
        try #require(host.runningServices.isEmpty)
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session", "settings.Analytics"])
        let line = events.lines.last ?? ""
        #expect(line.hasPrefix("discovered plugin 'settings' at \(settings): "), "\(events.lines)")
        #expect(line.hasSuffix("; started services: settings.Analytics"), "\(events.lines)")
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
    }

    /// Auth listed by the path discovery finds it at, which held garbage when it was first used: fixed, and the
    /// manifest edited to discover it, it is said discovered, and its load, its service and its routes are
    /// tried afresh rather than failing with the first load's error (the entry, the same, kept the failed slot).
    @Test func aListedPluginThatFailedToLoadIsTriedAfreshWhenTheEditDiscoversItFixed() throws {
        let lab = try DropInLab()
        let library = try lab.write(Array("not a library".utf8), as: "libAuthPlugin.so")
        try lab.writeListingAuth(library: library)
        let host = try lab.host()
        guard case .failed = host.coordinator.requestCoordination("auth.signIn", from: .app) else {
            throw TestFailure("garbage loaded")
        }
        let events = try HostEventCollector(host, watch: false)

        try lab.add("libAuthPlugin.so")
        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(events.lines.last?.hasPrefix("discovered plugin 'auth' at \(library): ") == true, "\(events.lines)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        let outcome = host.coordinator.requestCoordination("auth.signIn", from: .app)
        #expect(outcome.isHandled, "\(outcome)")
    }

    /// While the edit is held, its directory is watched for what it discovers; the library of a plugin the
    /// manifest in force lists is there too, and rebuilt, it is reloaded as before.
    @Test(.timeLimit(.minutes(20)))
    func aListedPluginRebuiltWhileAnEditIsHeldIsReloaded() async throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        try lab.writeListingGreeter(routing: "greet", to: "Greeter")
        let host = try lab.host()
        try #require(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.writeManifest(members: #""start": ["auth.signIn"]"#)
        let held = try #require(await events.next())
        try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let next = try #require(await events.next())

        guard case .manifestRejected = held else { throw TestFailure("the edit was \(held)") }
        guard case .pluginReloaded(plugin: "greeter", generation: 2, _, _, _) = next else {
            throw TestFailure("the event after the rebuild was \(next)")
        }
    }

    /// The same of a manifest that discovers already, whose edit adds a directory: watched while the edit is
    /// held, though the manifest in force does not read it.
    @Test(.timeLimit(.minutes(20)))
    func anEditHeldForAPluginInADirectoryItAddsIsTakenWhenThePluginLandsThere() async throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        try #require(mkdir(lab.directory.path + "/more.d", 0o755) == 0)
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        let edit = try lab.directory.file(
            ".app.json.tmp",
            containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "more.d"], "start": ["auth.signIn"]}"#)
        try #require(rename(edit, lab.manifestPath) == 0)
        let held = try #require(await events.next())
        let auth = try lab.directory.file(
            "more.d/libAuthPlugin.so", containing: BuildProducts.bytes(of: "libAuthPlugin.so"))
        var taken: [String] = []
        while let event = await events.next() {
            taken.append(event.description)
            if case .pluginDiscovered = event { break }
        }

        guard case .manifestRejected = held else { throw TestFailure("the edit was \(held)") }
        #expect(taken.first?.hasPrefix("reloaded manifest \(lab.manifestPath): 4 routes") == true, "\(taken)")
        #expect(taken.last?.hasPrefix("discovered plugin 'auth' at \(auth): ") == true, "\(taken)")
    }

    /// Without the edit's directory watched, the plugin landing is seen by nothing: the limit ends the wait.
    @Test(.timeLimit(.minutes(20)))
    func anEditToDiscoverHeldForItsStartRequestIsTakenWhenThePluginLandsInItsDirectory() async throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        try lab.writeListingGreeter(routing: "greet", to: "Greeter")
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.writeManifest(members: #""start": ["auth.signIn"]"#)
        let held = try #require(await events.next())
        let auth = try lab.add("libAuthPlugin.so")
        // The reload's line, then the plugin's.
        var taken: [String] = []
        while let event = await events.next() {
            taken.append(event.description)
            if case .pluginDiscovered = event { break }
        }

        guard case .manifestRejected = held else { throw TestFailure("the edit was \(held)") }
        #expect(
            taken == [
                "reloaded manifest \(lab.manifestPath): 4 routes",
                "discovered plugin 'auth' at \(auth): routes auth.signIn, auth.signIn from settings, auth.signOut go "
                    + "live; started services: auth.Session",
            ], "\(taken)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
    }
}
