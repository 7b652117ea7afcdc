import Glibc
import Testing

@testable import FlowHost

/// Under `--watch`, a plugin not loaded yet loads on its first request, not because its library was closed
/// after writing with its bytes unchanged (a `touch`, or a descriptor another process inherited and closed).
/// A rebuild of it, with other bytes, still loads it (``HotReloadTests``).
@MainActor
struct UnloadedPluginWatchTests {
    @Test func aLibraryClosedAfterWritingUnchangedDoesNotLoadAPluginNotLoadedYet() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        // Opened for writing and closed, as by a process that inherited the descriptor: IN_CLOSE_WRITE.
        let descriptor = open(lab.library, O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        close(descriptor)
        // The manifest's change is seen after the library's: a reload of the plugin would be said first.
        try lab.writeManifest(lab.manifest(routes: lab.routes))
        let event = try #require(await events.next())

        guard case .manifestReloaded = event else { throw TestFailure("the first event is \(event)") }
        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("greeter is \(String(describing: host.registry.status(of: "greeter")))")
        }
        #expect(host.registry.images(of: "greeter") == 0)
        #expect(host.stats.reloads == 0)
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.registry.images(of: "greeter") == 1)
    }
}
