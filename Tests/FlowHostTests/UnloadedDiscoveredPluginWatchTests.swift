import FlowKit
import Glibc
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowShell
@testable import PluginLoading

/// Under `--watch`, the library of a discovered plugin not loaded yet: a rebuild is said, and checked, as a
/// listed one's is (``UnloadedPluginWatchTests``), and a `wait reload` ends on it; a library gone for a moment
/// while discovery reads its directory (a linker deletes it before it writes the new one) is no problem.
@MainActor
struct UnloadedDiscoveredPluginWatchTests {
    @Test func aRebuiltDiscoveredLibraryOfAPluginNotLoadedYetIsSaidAndLoadsOnFirstUse() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let changes = try UnloadedListedPluginWatchTests.changes(of: host)
        defer { host.stop() }

        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")
        try await UnloadedListedPluginWatchTests.waitFor(changes, count: 1)

        #expect(
            changes.lines == ["plugin 'greeter' is not loaded yet: its new library \(library) will load on first use"])
        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("greeter is \(String(describing: host.registry.status(of: "greeter")))")
        }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 2, "the first use loads the new library")
    }

    @Test func aWaitForADiscoveredPluginNotLoadedYetEndsOnItsRebuildAndOnARefusedOne() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let shell = HostShell(host: try lab.host())
        try shell.host.watch()
        defer { shell.host.stop() }

        // Each change is handled on the main actor, which the test holds until the wait is pending.
        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")
        let rebuilt = await shell.perform("wait reload greeter 10")
        try lab.replace("libGreeter.so", with: "libBadSegfaultPlugin.so")
        let refused = await shell.perform("wait reload greeter 10")

        #expect(rebuilt.status == .ok, "\(rebuilt)")
        #expect(
            rebuilt.lines.first
                == "plugin 'greeter': not loaded yet; its new library will load on first use", "\(rebuilt.lines)")
        guard case .error(let message) = refused.status else { throw TestFailure("the wait ended \(refused)") }
        #expect(message.contains("would be refused"), "\(message)")
        #expect(message.contains(library), "\(message)")
    }

    @Test func aLinkToNoFileInADiscoveredDirectoryIsStillAProblem() throws {
        let lab = try DropInLab()
        try #require(symlink(lab.directory.path + "/nowhere.so", lab.plugins + "/libGreeter.so") == 0)

        let composition = try #require(
            PluginComposition.discovered(by: try lab.manifest(), searchPath: PluginSearchPath([]), prober: lab.prober))

        #expect(composition.problems.map(\.kind) == [.notFound], "\(composition.problems)")
    }
}
