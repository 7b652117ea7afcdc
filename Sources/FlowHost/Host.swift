import FlowKit

/// A running flow host: the manifest's routes in a ``BaseFlowCoordinator`` whose managers come from
/// plugins loaded on demand.
///
/// ```swift
/// let manifest = try Manifest.load(path: "manifests/demo.json")
/// let host = Host(manifest: manifest, searchPath: .standard(manifest: manifest))
/// host.start()
/// host.coordinator.requestCoordination("catalog.list", from: .app)
/// ```
@MainActor
public final class Host {
    public let manifest: Manifest
    public let registry: PluginRegistry
    /// The root coordinator, routing the manifest's requests.
    public let coordinator: BaseFlowCoordinator
    /// What went wrong while setting up: plugins or services that could not be loaded. The host runs
    /// without them; their routes fail with the same errors.
    public private(set) var problems: [PluginLoadError] = []

    /// Builds the host. Loads the plugins that provide services now, and with `eager` every plugin.
    public init(manifest: Manifest, searchPath: PluginSearchPath, eager: Bool = false) {
        self.manifest = manifest
        let registry = PluginRegistry(manifest: manifest, searchPath: searchPath)
        self.registry = registry
        var mapping = RequestCoordinatorMappingDictionary()
        for route in manifest.routes {
            let key = route.module.map { RequestRoute(route.request, from: $0) } ?? RequestRoute(route.request)
            mapping[key] = Host.factory(for: route, registry: registry)
        }
        var problems: [PluginLoadError] = []
        var services: [any CoordinatorServiceProtocol] = []
        for service in manifest.services {
            do {
                services.append(try registry.service(service.service, in: service.plugin).make())
            } catch {
                problems.append(error)
            }
        }
        if eager { problems += Host.check(manifest: manifest, registry: registry) }
        self.coordinator = BaseFlowCoordinator(name: manifest.name ?? "host", mapping: mapping, services: services)
        self.problems = Host.unique(problems)
    }

    /// Starts the services, then applies the manifest's `start` requests as a deep link.
    @discardableResult
    public func start() -> DeepLinkResult {
        coordinator.start()
        return coordinator.open(deepLink: manifest.start)
    }

    /// Stops the coordinator and its services.
    public func stop() {
        coordinator.stop()
    }

    /// Loads every plugin and checks that each route's manager and each service exists.
    ///
    /// - Returns: Every problem found, not just the first.
    public static func check(manifest: Manifest, registry: PluginRegistry) -> [PluginLoadError] {
        var problems = registry.loadAll()
        for route in manifest.routes {
            do { _ = try registry.manager(route.manager, in: route.plugin) } catch { problems.append(error) }
        }
        for service in manifest.services {
            do { _ = try registry.service(service.service, in: service.plugin) } catch { problems.append(error) }
        }
        return unique(problems)
    }

    /// The library serving manager `name` (as reported, `plugin.Manager`), for messages.
    public func library(ofManager name: String) -> String? {
        guard let dot = name.firstIndex(of: ".") else { return nil }
        return registry.library(of: String(name[..<dot]))
    }

    private static func factory(for route: Manifest.Route, registry: PluginRegistry) -> ManagerFactory {
        let binding = RouteBinding(route: route, registry: registry)
        return ManagerFactory(name: "\(route.plugin).\(route.manager)") { try binding.resolve() }
    }

    private static func unique(_ problems: [PluginLoadError]) -> [PluginLoadError] {
        var seen = Set<PluginLoadError>()
        return problems.filter { seen.insert($0).inserted }
    }
}

/// A route's link to its manager: resolves through the registry on first use, and again only when the
/// plugin's generation changes.
@MainActor
final class RouteBinding {
    private let route: Manifest.Route
    private let registry: PluginRegistry
    private var cached: (generation: Int, resolved: ManagerFactory.Resolved)?

    init(route: Manifest.Route, registry: PluginRegistry) {
        self.route = route
        self.registry = registry
    }

    func resolve() throws -> ManagerFactory.Resolved {
        guard let slot = registry.slot(route.plugin) else {
            throw PluginLoadError(file: registry.manifest.path, kind: .notFound, message: "no plugin named '\(route.plugin)'")
        }
        if let cached, cached.generation == slot.generation { return cached.resolved }
        let resolved = try registry.manager(route.manager, in: route.plugin).resolve()
        cached = (slot.generation, resolved)
        return resolved
    }
}
