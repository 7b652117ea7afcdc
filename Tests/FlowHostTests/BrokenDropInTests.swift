import FlowComposition
import FlowKit
import Testing

@testable import FlowHost

/// A discovered plugin's library written over, while the host runs, with a file that cannot be probed: the
/// plugin keeps its state and its loaded generation, as after any refused reload, until the file is fixed
/// or deleted.
@MainActor
struct BrokenDropInTests {
    @Test func garbageOverALoadedPluginIsARefusedReloadAndTheLoadedGenerationKeepsServing() async throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))

        try lab.write(Array("garbage\n".utf8), as: "libGreeter.so")
        let refusal = try #require(await events.nextLine())

        #expect(refusal.hasPrefix("reload refused: \(path): not an ELF shared object"), "\(refusal)")
        #expect(!refusal.contains("\n"))
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 1, "the loaded generation serves")
        #expect(host.composition?.plugin(named: "greeter")?.isActive == true)

        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")
        let reload = try #require(await events.nextLine())
        #expect(reload.hasPrefix("reloaded plugin 'greeter': generation 2 from \(path)"), "\(reload)")
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.coordinator.router.top?.content["version"] == 2)

        try lab.remove("libGreeter.so")
        let removal = try #require(await events.nextLine())
        #expect(removal.hasPrefix("plugin 'greeter' removed (\(path))"), "deleted is removed: \(removal)")
    }

    @Test func aLibraryWhoseProbeCrashesOverALoadedPluginIsRefusedWithoutBeingOpened() throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.add("libBadAbortPlugin.so", as: "libGreeter.so")
        let lines = host.rediscover(changed: path).map(\.description)

        #expect(lines.count == 1, "one line: \(lines)")
        #expect(lines.first?.hasPrefix("reload refused: \(path): ") == true, "\(lines)")
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.images(of: "greeter") == 1, "not opened in the host")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aLibraryThatIsNoPluginOverALoadedPluginIsARefusedReloadNotARemoval() throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.add("libFlowKit.so", as: "libGreeter.so")
        let lines = host.rediscover(changed: path).map(\.description)

        #expect(lines.count == 1, "one line: \(lines)")
        #expect(lines.first?.hasPrefix("reload refused: \(path): ") == true, "\(lines)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aTruncatedLibraryOfAPluginNotLoadedYetIsADiscoveryProblemAndThePluginKeepsItsRoutes() throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()

        try lab.write(Array(try BuildProducts.bytes(of: "libGreeterPluginV1.so").prefix(100)), as: "libGreeter.so")
        let lines = host.rediscover(changed: path).map(\.description)

        #expect(lines.count == 1, "one line: \(lines)")
        #expect(lines.first?.hasPrefix("discovery: \(path): is truncated: 100 bytes") == true, "\(lines)")
        #expect(host.composition?.plugin(named: "greeter")?.isActive == true)
        #expect(host.composition?.sources[.init("greet", from: nil)] == .plugin("greeter"), "still routed")

        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        #expect(host.rediscover(changed: path).isEmpty, "fixed: nothing to say")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aPluginThatFailedToLoadFromABrokenLibraryLoadsOnceTheFileIsFixed() async throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        try lab.write(Array("garbage\n".utf8), as: "libGreeter.so")
        host.rediscover(changed: path)
        #expect(await events.nextLine()?.hasPrefix("discovery: \(path): not an ELF shared object") == true)
        guard case .failed = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("greet did not fail while its library is garbage")
        }

        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        host.rediscover(changed: path)

        let reload = try #require(await events.nextLine())
        #expect(reload.hasPrefix("reloaded plugin 'greeter': generation 1 from \(path)"), "\(reload)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }
}
