/// What a plugin offers the host: its managers and services, by name, what it proposes to a manifest
/// that discovers it: routes, services to start, and the other plugins it requires, and the modules its
/// managers present with the requests they can send, for flow graphs.
///
/// A plugin returns one from its entry point (see ``PluginEntry``). The host's manifest names the
/// managers and services it routes to; names are unique within a plugin. A manifest that discovers the
/// plugin (`"discover": ["plugins.d"]`) takes its ``routes`` and ``startServices`` as well, orders it
/// after the plugins it ``requires``, and refuses it when one of them is missing or of another version.
///
/// ```swift
/// let plugin = PluginDescription(
///     name: "catalog", version: "1.2.0",
///     managers: [ManagerFactory("ItemList", ItemListManager.self)],
///     services: [ServiceFactory("Store") { StoreService() }],
///     routes: [DeclaredRoute("catalog.list", manager: "ItemList")],
///     startServices: [ServiceStart("Store")],
///     requires: ["auth": ">=1.0 <2"],
///     modules: [DeclaredModule(.itemList, presentedBy: "ItemList", sends: [.action("open", .showDetail)])])
/// ```
public struct PluginDescription: Sendable {
    /// The plugin's name, for reports.
    public var name: String
    /// The plugin's own version: a semantic version (`1.2.0`), which other plugins' ``requires`` ranges
    /// are checked against.
    public var version: String
    /// The managers, by the name a manifest uses.
    public var managers: [ManagerFactory]
    /// The services, by the name a manifest uses.
    public var services: [ServiceFactory]
    /// The routes the plugin proposes to a manifest that discovers it, each to one of its ``managers``.
    public var routes: [DeclaredRoute]
    /// The services to start when a manifest discovers the plugin, in order, each one of its ``services``.
    public var startServices: [ServiceStart]
    /// The plugins this one needs, by name, each with a range of semantic versions such as `">=1.2 <2"`,
    /// `"^1.2"` or `"*"` (any). The host loads them and starts their services first, and refuses this
    /// plugin when one is missing, of a version outside its range, or requires it back.
    public var requires: [String: String]
    /// The modules the plugin's managers present and the requests each can send: what `flowhost graph`
    /// draws of the plugin without a trace. The host routes nothing by them.
    public var modules: [DeclaredModule]

    /// Describes a plugin.
    ///
    /// Written before plugins declared routes, `PluginDescription(name:version:managers:services:)` still
    /// builds, and describes a plugin that proposes nothing; written before they declared modules, a call
    /// without `modules:` still builds, and declares none.
    public init(
        name: String, version: String, managers: [ManagerFactory], services: [ServiceFactory] = [],
        routes: [DeclaredRoute] = [], startServices: [ServiceStart] = [], requires: [String: String] = [:],
        modules: [DeclaredModule] = []
    ) {
        self.name = name
        self.version = version
        self.managers = managers
        self.services = services
        self.routes = routes
        self.startServices = startServices
        self.requires = requires
        self.modules = modules
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
