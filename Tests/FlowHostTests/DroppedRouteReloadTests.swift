import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// A discovered plugin rebuilt without a route that the manifest's start requests, deep links' first steps or
/// guard redirects are sent to is a refused reload, as a manifest edit leaving one of them unrouted is
/// rejected: the composition in force stays and the loaded generation keeps serving. The fixtures: V2 of the
/// greeter declares `greet` and `bye`, V1 only `greet`, so V1 over V2 drops `bye`.
@MainActor
struct DroppedRouteReloadTests {
    @Test func underWatchABuildThatNoLongerRoutesAStartRequestIsARefusedReload() async throws {
        let lab = try DropInLab(members: #""start": ["bye"]"#)
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()  // its start request loads generation 1
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.registry.servingGeneration(of: "greeter") == 1)

        try lab.replace("libGreeter.so", with: "libGreeterPluginV1.so")
        let refusal = await events.nextLine()

        #expect(
            refusal
                == "reload refused: \(library): it no longer declares a route for 'bye', which the manifest's start[0] sends; generation 1 keeps serving"
        )
        #expect(host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"))
        #expect(host.composition?.composedManifestErrors.isEmpty == true, "the composition in force stays")
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.servingGeneration(of: "greeter") == 1)
        #expect(host.coordinator.router.top?.content["version"] == 2, "the loaded generation serves")

        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")
        #expect(
            await events.nextLine()
                == "plugin 'greeter': its library is back to the build generation 1 was loaded from; generation 1 keeps serving"
        )
    }

    @Test func aListedPluginsBuildThatNoLongerRoutesAStartRequestIsARefusedReloadToo() throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "plugins.d/libGreeter.so"}, "start": ["bye"]"#)
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()

        try lab.replace("libGreeter.so", with: "libGreeterPluginV1.so")
        let events = host.rediscover(changed: library).map(\.description)

        #expect(
            events == [
                "reload refused: \(library): it no longer declares a route for 'bye', which the manifest's start[0] sends; generation 1 keeps serving"
            ])
        #expect(host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"))
    }

    @Test func underWatchABuildThatNoLongerRoutesADeepLinksFirstStepIsRefusedBeforeItLoads() async throws {
        let lab = try DropInLab(members: #""deepLinks": [{"pattern": "demo://bye", "requests": ["bye"]}]"#)
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.registry.servingGeneration(of: "greeter") == nil, "not loaded yet")

        try lab.replace("libGreeter.so", with: "libGreeterPluginV1.so")
        let refusal = await events.nextLine()

        #expect(
            refusal
                == "plugin 'greeter' is not loaded yet, and its new library would be refused: \(library): it no longer declares a route for 'bye', the first step of the manifest's deepLinks[0]"
        )
        #expect(host.composition?.composedManifestErrors.isEmpty == true, "the composition in force stays")
        #expect(host.stats.refusedReloads == 0, "no reload")
    }

    @Test func aBuildThatNoLongerRoutesAGuardsRedirectIsRefusedAndItsDeletionStillARemoval() throws {
        let lab = try DropInLab(
            members: #""guards": [{"requests": ["greet"], "unless": "ready", "redirect": "bye"}]"#)
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("bye", from: .app).isHandled)

        try lab.replace("libGreeter.so", with: "libGreeterPluginV1.so")
        let events = host.rediscover(changed: library).map(\.description)

        #expect(
            events == [
                "reload refused: \(library): it no longer declares a route for 'bye', which the manifest's guards[0] redirects to; generation 1 keeps serving"
            ])
        #expect(host.manifest.routes.contains { $0.request == "bye" }, "the route in force stays")

        try lab.remove("libGreeter.so")
        let removal = host.rediscover().compactMap(\.dropIn)

        #expect(removal == ["removed greeter routes=greet,bye services="], "a library deleted is still a removal")
        guard case .failed = host.coordinator.requestCoordination("bye", from: .app) else {
            throw TestFailure("bye did not fail")
        }
    }

    @Test func theCompositionOfARebuildKeepsTheRefusedLibrarysLastDeclarations() throws {
        let lab = try DropInLab(
            members: #""start": ["bye"], "deepLinks": [{"pattern": "demo://bye", "requests": ["bye"]}]"#)
        try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let manifest = try lab.manifest()
        func compose(after previous: PluginComposition? = nil) throws -> PluginComposition {
            try #require(
                PluginComposition.discovered(
                    by: manifest, searchPath: PluginSearchPath([]), prober: lab.prober, previous: previous))
        }
        let previous = try compose()

        try lab.replace("libGreeter.so", with: "libGreeterPluginV1.so")
        let next = try compose(after: previous)
        let fresh = try compose()

        #expect(next.composedManifestErrors.isEmpty)
        #expect(
            next.plugin(named: "greeter")?.probeFailure?.message
                == "it no longer declares a route for 'bye', which the manifest's start[0] sends (and 1 more the manifest sends)"
        )
        #expect(next.plugin(named: "greeter")?.probe?.routes.count == 2, "V2's declarations are kept")
        #expect(
            fresh.composedManifestErrors.map(\.kind) == [ManifestError.Kind.unroutedStart, .badDeepLink],
            "validate still says what is wrong")
    }
}
