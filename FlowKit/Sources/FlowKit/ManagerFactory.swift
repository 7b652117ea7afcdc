/// How a coordinator makes the manager for a request: a name for reports plus a way to create it.
///
/// Plugins describe their managers with factories; a ``RequestCoordinatorMappingDictionary`` maps
/// requests to them.
public struct ManagerFactory: Sendable {
    /// The resolved form: requirements and a constructor.
    public struct Resolved: Sendable {
        /// The dependencies the manager needs, see ``RequestCoordinatorManager/requirements``.
        public var requirements: @MainActor @Sendable () -> [DependencyKey]
        /// Creates the manager.
        public var make: @MainActor @Sendable (any FlowCoordinator) -> any RequestCoordinatorManager
        /// The name outcomes and events report instead of the factory's, when one factory stands for
        /// several managers (an experiment's variants).
        public var name: String?

        /// A manager of type `type`.
        public init<Manager: RequestCoordinatorManager>(_ type: Manager.Type) {
            self.requirements = { Manager.requirements }
            self.make = { Manager(coordinator: $0) }
        }

        /// This resolution reported as `name`.
        public func named(_ name: String) -> Resolved {
            var renamed = self
            renamed.name = name
            return renamed
        }
    }

    /// The name the manager is reported under, for example `CatalogPlugin.ItemList`.
    public let name: String
    private let resolver: @MainActor @Sendable () throws -> Resolved

    /// A factory for managers of type `type`, reported as `name`.
    public init<Manager: RequestCoordinatorManager>(_ name: String, _ type: Manager.Type) {
        let resolved = Resolved(type)
        self.name = name
        self.resolver = { resolved }
    }

    /// A factory that finds its manager type only when first used, for example by loading a plugin.
    ///
    /// `resolve` is called for each request; it should cache. An error it throws becomes the request's
    /// ``CoordinationOutcome/failed(_:)`` outcome.
    public init(name: String, resolve: @escaping @MainActor @Sendable () throws -> Resolved) {
        self.name = name
        self.resolver = resolve
    }

    /// Resolves the manager type.
    @MainActor
    public func resolve() throws -> Resolved { try resolver() }
}
