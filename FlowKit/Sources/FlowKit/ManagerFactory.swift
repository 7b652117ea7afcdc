/// How a coordinator makes the manager for a request: a name for reports plus a way to create it.
///
/// Plugins describe their managers with factories; a ``RequestCoordinatorMappingDictionary`` maps
/// requests to them.
public struct ManagerFactory: Sendable {
    /// The resolved form: a constructor and the manager's requirements.
    ///
    /// A class, so that the request path retains one object rather than copying closures.
    public final class Resolved: Sendable {
        private let makeManager: @MainActor @Sendable (any FlowCoordinator) -> any RequestCoordinatorManager
        private let readRequirements: @MainActor @Sendable () -> [DependencyKey]
        /// The requirements, once read.
        private let readOnce = RequirementsCache()
        /// The name outcomes and events report instead of the factory's, when one factory stands for
        /// several managers (an experiment's variants).
        public let name: String?
        /// Whether the managers are ``FlowManager``s, which count what holds them: known once, so that the
        /// request path needs no dynamic cast.
        let makesFlowManagers: Bool
        /// The identity of the managers' type, `ObjectIdentifier(Manager.self)`: a host tells a plugin
        /// generation's managers from another's by it, as each generation defines its types anew.
        public let managerTypeID: ObjectIdentifier

        /// A manager of type `type`.
        public convenience init<Manager: RequestCoordinatorManager>(_ type: Manager.Type) {
            self.init(
                make: { Manager(coordinator: $0) }, requirements: { Manager.requirements }, name: nil,
                typeID: ObjectIdentifier(type), makesFlowManagers: type is FlowManager.Type)
        }

        init(
            make: @escaping @MainActor @Sendable (any FlowCoordinator) -> any RequestCoordinatorManager,
            requirements: @escaping @MainActor @Sendable () -> [DependencyKey], name: String?,
            typeID: ObjectIdentifier, makesFlowManagers: Bool
        ) {
            self.makeManager = make
            self.readRequirements = requirements
            self.name = name
            self.managerTypeID = typeID
            self.makesFlowManagers = makesFlowManagers
        }

        /// This resolution reported as `name`.
        public func named(_ name: String) -> Resolved {
            Resolved(
                make: makeManager, requirements: readRequirements, name: name, typeID: managerTypeID,
                makesFlowManagers: makesFlowManagers)
        }

        /// Creates a manager working for `coordinator`.
        @MainActor
        public func make(_ coordinator: any FlowCoordinator) -> any RequestCoordinatorManager {
            makeManager(coordinator)
        }

        /// The dependencies the manager needs, see ``RequestCoordinatorManager/requirements``; read once.
        @MainActor
        public var requirements: [DependencyKey] {
            if let requirements = readOnce.requirements { return requirements }
            let requirements = readRequirements()
            readOnce.requirements = requirements
            return requirements
        }

        /// Whether the manager needs any dependency.
        @MainActor
        var hasRequirements: Bool {
            if let requirements = readOnce.requirements { return !requirements.isEmpty }
            return !requirements.isEmpty
        }
    }

    /// A resolution's requirements, read on the main actor the first time a request needs them.
    @MainActor
    final class RequirementsCache {
        var requirements: [DependencyKey]?

        nonisolated init() {}
    }

    /// The name the manager is reported under, for example `CatalogPlugin.ItemList`.
    public let name: String
    let source: Source

    enum Source: Sendable {
        case ready(Resolved)
        case lazy(@MainActor @Sendable () throws -> Resolved)
        case cached(KeptResolution)
    }

    /// A factory for managers of type `type`, reported as `name`.
    public init<Manager: RequestCoordinatorManager>(_ name: String, _ type: Manager.Type) {
        self.name = name
        self.source = .ready(Resolved(type))
    }

    /// A factory that finds its manager type only when first used, for example by loading a plugin.
    ///
    /// `resolve` is called for each request; it should cache. An error it throws becomes the request's
    /// ``CoordinationOutcome/failed(_:)-enum.case`` outcome.
    public init(name: String, resolve: @escaping @MainActor @Sendable () throws -> Resolved) {
        self.name = name
        self.source = .lazy(resolve)
    }

    /// A factory that finds its manager type on its first request and keeps it until `cache` is
    /// invalidated (``ResolutionCache/invalidate()``).
    ///
    /// `resolve` is called again only after an invalidation, or after it threw: an error it throws becomes
    /// the request's ``CoordinationOutcome/failed(_:)-enum.case`` outcome and is not kept.
    public init(
        name: String, cachedIn cache: ResolutionCache, resolve: @escaping @MainActor @Sendable () throws -> Resolved
    ) {
        self.name = name
        self.source = .cached(KeptResolution(cache: cache, resolve: resolve))
    }

    /// The resolution of a factory made from a manager type; `nil` for one that resolves lazily.
    var ready: Resolved? {
        if case .ready(let resolved) = source { return resolved }
        return nil
    }

    /// What a factory made with ``init(name:cachedIn:resolve:)`` keeps; `nil` for any other.
    var kept: KeptResolution? {
        if case .cached(let kept) = source { return kept }
        return nil
    }

    /// Resolves the manager type.
    @MainActor
    public func resolve() throws -> Resolved {
        switch source {
        case .ready(let resolved): return resolved
        case .lazy(let resolve): return try resolve()
        case .cached(let kept): return try kept.resolveKeeping()
        }
    }
}
