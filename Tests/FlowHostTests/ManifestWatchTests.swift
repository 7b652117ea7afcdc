import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// Under `--watch`, a manifest file read again that declares what is in force says nothing, as an unchanged
/// library does: a `touch`, the same bytes saved again, or a read after inotify lost events (which reports
/// every watched file). The `reload` command says what it read whatever it finds, and a file brought back to
/// what is in force after a refused edit is said: the refusal is then no longer the last word. A refused edit
/// read again with the same errors is not said again, as the same refused build of a library is not.
@MainActor
struct ManifestWatchTests {
    @Test func theManifestWrittenAgainUnchangedSaysNothing() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        let events = try HostEventCollector(host)
        defer { host.stop() }

        // The same declarations, spaced differently: nothing to say.
        try lab.writeManifest(lab.manifest(routes: lab.routes).replacing(", ", with: ",  "))
        // The library's change is seen after the manifest's: a line for the manifest would come first.
        try lab.install("GreeterPluginV2")
        let first = try #require(await events.next())

        guard case .pluginReloaded(plugin: "greeter", generation: 2, _, _, _) = first else {
            throw TestFailure("the first event was \(first)")
        }
        #expect(host.reloadManifest().description.hasPrefix("reloaded manifest "), "asked for, a reload is said")
    }

    @Test func theManifestBackToWhatIsInForceAfterARefusedEditIsSaid() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.writeManifest(lab.manifest(routes: lab.routes).replacing(#""greeter","#, with: #""gone","#))
        let refused = try #require(await events.next())
        try lab.writeManifest(lab.manifest(routes: lab.routes))
        let restored = try #require(await events.next())

        guard case .manifestRejected = refused else { throw TestFailure("the edit was \(refused)") }
        guard
            case .manifestReloaded(file: lab.manifestPath, routes: 1, changes: RouteChanges(), servicesChanged: false) =
                restored
        else {
            throw TestFailure("the manifest back was \(restored)")
        }
    }

    @Test func aRefusedEditWrittenAgainIsNotRefusedAgain() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        let events = try HostEventCollector(host)
        defer { host.stop() }

        let broken = lab.manifest(routes: lab.routes).replacing(#""greeter","#, with: #""gone","#)
        try lab.writeManifest(broken)
        let refused = try #require(await events.next())
        try lab.writeManifest(broken)
        // The library's change is seen after the manifest's: a second refusal would come first.
        try lab.install("GreeterPluginV2")
        let next = try #require(await events.next())

        guard case .manifestRejected = refused else { throw TestFailure("the edit was \(refused)") }
        guard case .pluginReloaded(plugin: "greeter", _, _, _, _) = next else {
            throw TestFailure("the event after the refusal was \(next)")
        }
    }

    @Test func aDiscoveringManifestWrittenAgainUnchangedSaysNothing() async throws {
        let lab = try DropInLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.writeManifest(members: "")
        // Seen after the manifest: a line for the manifest would come first.
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let first = try #require(await events.next())

        guard case .pluginDiscovered(plugin: "greeter", _, _, _, _) = first else {
            throw TestFailure("the first event was \(first)")
        }
    }

    @Test func aHeldEditTakenOnceItsPluginLandsIsInForce() async throws {
        let lab = try DropInLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        let edit = #""start": ["greet"]"#

        // Held: no route handles 'greet' until the greeter lands, whose discovery takes the edit.
        try lab.writeManifest(members: edit)
        let held = try #require(await events.next())
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        var taken: [HostEvent] = []
        while let event = await events.next() {
            taken.append(event)
            if case .manifestReloaded = event { break }
        }
        // The edit in force, written again: nothing to say before the next plugin lands.
        try lab.writeManifest(members: edit)
        try lab.add("libWelcomePlugin.so")
        let next = try #require(await events.next())

        guard case .manifestRejected = held else { throw TestFailure("the edit was \(held)") }
        #expect(taken.contains { $0.dropIn?.hasPrefix("discovered greeter") == true }, "\(taken)")
        guard case .pluginDiscovered(plugin: "welcome", _, _, _, _) = next else {
            throw TestFailure("the event after the edit was written again was \(next)")
        }
    }
}
