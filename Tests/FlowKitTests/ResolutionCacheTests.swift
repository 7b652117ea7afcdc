import FlowKit
import Testing

/// A factory cached in a `ResolutionCache` resolves on its first request and keeps what it resolved until
/// the cache is invalidated; an error is not kept.
@MainActor
struct ResolutionCacheTests {
    /// Counts its calls; resolves to a presenting manager named `name`, or throws `failure`.
    private final class Resolver {
        var calls = 0
        var failure: FlowError?
        var name: String?

        func resolve() throws -> ManagerFactory.Resolved {
            calls += 1
            if let failure { throw failure }
            let resolved = ManagerFactory.Resolved(PresentingManager.self)
            return name.map(resolved.named) ?? resolved
        }
    }

    /// A coordinator routing `show` to a factory cached in `cache` that resolves with `resolver`.
    private func coordinator(_ resolver: Resolver, cache: ResolutionCache) -> BaseFlowCoordinator {
        var mapping = RequestCoordinatorMappingDictionary()
        mapping[RequestRoute("show")] = ManagerFactory(name: "Show", cachedIn: cache) { try resolver.resolve() }
        return BaseFlowCoordinator(mapping: mapping)
    }

    @Test func resolvesOnceUntilInvalidated() throws {
        let cache = ResolutionCache()
        let resolver = Resolver()
        let coordinator = coordinator(resolver, cache: cache)

        let show = CoordinationRequest("show")
        for _ in 0..<3 { #expect(coordinator.requestCoordination(show, from: .app) == .handled(manager: "Show")) }
        #expect(resolver.calls == 1)

        resolver.name = "Show [v2]"
        cache.invalidate()
        for _ in 0..<2 { #expect(coordinator.requestCoordination(show, from: .app) == .handled(manager: "Show [v2]")) }
        #expect(resolver.calls == 2)
        #expect(coordinator.router.modules.count == 5)
    }

    @Test func aFailureIsNotKept() {
        let cache = ResolutionCache()
        let resolver = Resolver()
        resolver.failure = FlowError("the plugin is not there")
        let coordinator = coordinator(resolver, cache: cache)

        #expect(coordinator.requestCoordination(CoordinationRequest("show"), from: .app).isHandled == false)
        #expect(coordinator.requestCoordination(CoordinationRequest("show"), from: .app).isHandled == false)
        resolver.failure = nil
        #expect(coordinator.requestCoordination(CoordinationRequest("show"), from: .app) == .handled(manager: "Show"))
        #expect(coordinator.requestCoordination(CoordinationRequest("show"), from: .app) == .handled(manager: "Show"))

        #expect(resolver.calls == 3)
    }

    /// The same factory routed from one module only goes through the factory rather than the route's
    /// kept resolution: it still resolves once.
    @Test func aModuleRouteKeepsItsResolutionToo() {
        let cache = ResolutionCache()
        let resolver = Resolver()
        var mapping = RequestCoordinatorMappingDictionary()
        mapping[RequestRoute("show", from: "home")] = ManagerFactory(name: "Show", cachedIn: cache) {
            try resolver.resolve()
        }
        let coordinator = BaseFlowCoordinator(mapping: mapping)

        for _ in 0..<3 {
            #expect(coordinator.requestCoordination(CoordinationRequest("show"), from: "home").isHandled)
        }
        #expect(coordinator.requestCoordination(CoordinationRequest("show"), from: .app) == .unhandled)
        #expect(resolver.calls == 1)
    }
}
