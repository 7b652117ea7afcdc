import Glibc
import Testing

@testable import FlowHost

/// Under `--watch`, a plugin library that is not there when the watch starts is watched where it would be
/// found, so that making it loads the plugin, in a manifest without `discover` too.
@MainActor
struct MissingLibraryWatchTests {
    @Test(.timeLimit(.minutes(1)))
    func aLibraryFoundThroughTheSearchPathAndMissingAtTheStartLoadsOnceItIsMade() async throws {
        let lab = try SwapLab()
        try #require(unlink(lab.library) == 0)
        let host = try lab.host()
        guard case .failed = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("greet did not fail while its library is missing")
        }
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.install("GreeterPluginV1")
        let line = try #require(await events.nextLine())

        #expect(line.hasPrefix("reloaded plugin 'greeter': generation 1 from \(lab.library)"), "\(line)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }
}
