import FlowKit
import Glibc
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// A discovered plugin rebuilt so that it declares a route to a manager it no longer exports (the manager
/// deleted, its route left) is a refused reload, as `validate` calls the build invalid: the loaded generation
/// keeps serving its routes. The fixtures: V2 of the greeter declares `bye` to `Farewell` and exports it; V3
/// declares the same route and exports no `Farewell`.
@MainActor
struct BrokenRebuildReloadTests {
    @Test func underWatchABuildThatNoLongerExportsARoutedManagerIsARefusedReload() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"))

        try lab.replace("libGreeter.so", with: "libGreeterPluginV3.so")
        let refusal = await events.nextLine()

        #expect(
            refusal
                == "reload refused: \(library): plugin 'greeter' declares a route for \"bye\" to manager 'Farewell', which it does not export; it exports: Composer, Greeter, Poller; generation 1 keeps serving"
        )
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.servingGeneration(of: "greeter") == 1)
        #expect(host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"))
    }

    /// One build is several file events (a linker removes the file, makes it anew and writes it, then closes
    /// it): its refusal is said and counted once, as a listed plugin's refused reload is. It was said at each
    /// event (found by a trial: twice or three times for one `swift build`).
    @Test func oneBrokenBuildIsRefusedOnceHoweverManyFileEventsItLandsAs() throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"))

        try lab.add("libGreeterPluginV3.so", as: "libGreeter.so")
        let first = host.rediscover(changed: library).map(\.description)
        // The same bytes, the file touched again (the linker's close).
        try #require(utimes(library, nil) == 0)
        let second = host.rediscover(changed: library).map(\.description)

        #expect(first.filter { $0.hasPrefix("reload refused: ") }.count == 1, "\(first)")
        #expect(second.isEmpty, "\(second)")
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.servingGeneration(of: "greeter") == 1)

        // Another build refused for the same reason is a refusal of its own.
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        _ = host.rediscover(changed: library)
        try lab.add("libGreeterPluginV3.so", as: "libGreeter.so")
        let again = host.rediscover(changed: library).map(\.description)
        #expect(again.filter { $0.hasPrefix("reload refused: ") }.count == 1, "\(again)")
    }

    @Test func aPluginNotLoadedYetKeepsTheRoutesOfItsLastGoodBuild() throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.registry.servingGeneration(of: "greeter") == nil, "not loaded yet")

        try lab.replace("libGreeter.so", with: "libGreeterPluginV3.so")
        let events = host.rediscover(changed: library).map(\.description)

        #expect(
            events == [
                "plugin 'greeter' is not loaded yet, and its new library would be refused: \(library): plugin 'greeter' declares a route for \"bye\" to manager 'Farewell', which it does not export; it exports: Composer, Greeter, Poller"
            ])
        #expect(host.manifest.routes.contains { $0.request == "bye" }, "the route in force stays")
    }

    @Test func aBuildThatExportsTheManagerAgainReloads() throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV3.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)  // loads generation 1

        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")
        let events = host.rediscover(changed: library).map(\.description)
        let reload = host.reloadPlugin("greeter").description

        #expect(!events.contains { $0.hasPrefix("reload refused") }, "\(events)")
        #expect(reload.hasPrefix("reloaded plugin 'greeter'"), "\(reload)")

        #expect(host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"))
    }

    /// A mistake the build before made too is not a reason to refuse: it stays the discovery problem it was,
    /// so that a plugin with an old mistake still reloads.
    @Test func onlyAMistakeTheBuildBeforeDidNotMakeRefusesTheReload() {
        func probe(version: String, managers: [String], routes: [(String, String)]) -> ProbedPlugin {
            ProbedPlugin(
                path: "/p/libgreeter.so", name: "greeter", version: version,
                flowKitVersion: FlowKitVersion.current,
                managers: managers.map { ProbedPlugin.Manager(name: $0, requirements: []) }, services: [],
                routes: routes.map { DeclaredRoute(CoordinationRequestName($0.0), manager: $0.1) }, modules: [])
        }
        let routes = [("greet", "Greeter"), ("bye", "Farewell")]
        let oldMistake = probe(version: "1", managers: ["Greeter"], routes: routes)
        let sameMistake = probe(version: "2", managers: ["Greeter"], routes: routes)
        let newMistake = probe(version: "3", managers: [], routes: routes)

        #expect(PluginComposition.newProblems(of: sameMistake, before: oldMistake).isEmpty)
        #expect(
            PluginComposition.newProblems(of: newMistake, before: oldMistake).map(\.message) == [
                "plugin 'greeter' declares a route for \"greet\" to manager 'Greeter', which it does not export; it exports: nothing"
            ])
    }
}
