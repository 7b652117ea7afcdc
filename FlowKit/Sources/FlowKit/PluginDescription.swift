/// What a plugin offers the host: its managers and services, by name.
///
/// A plugin returns one from its entry point (see ``PluginEntry``). The host's manifest names the
/// managers and services it routes to; names are unique within a plugin.
public struct PluginDescription: Sendable {
    /// The plugin's name, for reports.
    public var name: String
    /// The plugin's own version, for reports.
    public var version: String
    /// The managers, by the name a manifest uses.
    public var managers: [ManagerFactory]
    /// The services, by the name a manifest uses.
    public var services: [ServiceFactory]

    /// Describes a plugin.
    public init(name: String, version: String, managers: [ManagerFactory], services: [ServiceFactory] = []) {
        self.name = name
        self.version = version
        self.managers = managers
        self.services = services
    }

    /// The manager exported as `name`.
    public func manager(named name: String) -> ManagerFactory? {
        managers.first { $0.name == name }
    }

    /// The service exported as `name`.
    public func service(named name: String) -> ServiceFactory? {
        services.first { $0.name == name }
    }
}

/// How a coordinator makes a service a plugin exports.
public struct ServiceFactory: Sendable {
    /// The name a manifest uses.
    public let name: String
    /// Creates the service.
    public let make: @MainActor @Sendable () -> any CoordinatorServiceProtocol

    /// A factory for services made by `make`.
    public init(_ name: String, make: @escaping @MainActor @Sendable () -> any CoordinatorServiceProtocol) {
        self.name = name
        self.make = make
    }
}
