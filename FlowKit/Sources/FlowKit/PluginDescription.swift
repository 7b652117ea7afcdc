/// What a plugin offers the host: its managers and services, by name, what it proposes to a manifest
/// that discovers it: routes, services to start, guards, deep links, and the other plugins it requires,
/// and the modules its managers present with the requests they can send, for flow graphs.
///
/// A plugin returns one from its entry point (see ``PluginEntry``). The host's manifest names the
/// managers and services it routes to; names are unique within a plugin. A manifest that discovers the
/// plugin (`"discover": ["plugins.d"]`) takes its ``routes``, ``startServices``, ``guards`` and
/// ``deepLinks`` as well, orders it after the plugins it ``requires``, and refuses it when one of them is
/// missing or of another version.
///
/// ```swift
/// let plugin = PluginDescription(
///     name: "catalog", version: "1.2.0",
///     managers: [ManagerFactory("ItemList", ItemListManager.self)],
///     services: [ServiceFactory("Store") { StoreService() }],
///     routes: [DeclaredRoute("catalog.list", manager: "ItemList")],
///     startServices: [ServiceStart("Store")],
///     requires: ["auth": ">=1.0 <2"],
///     guards: [DeclaredGuard("signedIn", requests: ["catalog.*"], unless: .context("user"), redirect: .signIn)],
///     deepLinks: [DeclaredDeepLink("demo://items", opens: [CoordinationRequest(.showList)])],
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
    /// The guards the plugin proposes to a manifest that discovers it, in order, after the manifest's own
    /// (its `guards` entry of the same name overrides one; `exclude.guards` leaves one out). Each redirect
    /// must be a request some route handles. Since FlowKit 1.2.
    public var guards: [DeclaredGuard] = []
    /// The deep links the plugin proposes to a manifest that discovers it, after the manifest's own (its
    /// `deepLinks` entry of the same pattern overrides one; `exclude.deepLinks` leaves one out). Since
    /// FlowKit 1.2.
    public var deepLinks: [DeclaredDeepLink] = []

    /// Describes a plugin that proposes guards or deep links (FlowKit 1.2).
    public init(
        name: String, version: String, managers: [ManagerFactory], services: [ServiceFactory] = [],
        routes: [DeclaredRoute] = [], startServices: [ServiceStart] = [], requires: [String: String] = [:],
        guards: [DeclaredGuard] = [], deepLinks: [DeclaredDeepLink] = [], modules: [DeclaredModule] = []
    ) {
        self.name = name
        self.version = version
        self.managers = managers
        self.services = services
        self.routes = routes
        self.startServices = startServices
        self.requires = requires
        self.guards = guards
        self.deepLinks = deepLinks
        self.modules = modules
    }

    /// Describes a plugin that proposes no guards or deep links: the form of FlowKit 1.0 and 1.1, which
    /// a call without `guards:` and `deepLinks:` reaches (plugin binaries built against them call it).
    ///
    /// Written before plugins declared routes, `PluginDescription(name:version:managers:services:)` still
    /// builds, and describes a plugin that proposes nothing; written before they declared modules, a call
    /// without `modules:` still builds, and declares none.
    public init(
        name: String, version: String, managers: [ManagerFactory], services: [ServiceFactory] = [],
        routes: [DeclaredRoute] = [], startServices: [ServiceStart] = [], requires: [String: String] = [:],
        modules: [DeclaredModule] = []
    ) {
        self.init(
            name: name, version: version, managers: managers, services: services, routes: routes,
            startServices: startServices, requires: requires, guards: [], deepLinks: [], modules: modules)
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
    /// The top-level context keys the service provides, when it is a ``ContextProviderProtocol``: declared
    /// so that `flowhost validate` can say when two started services provide the same key (the first
    /// started gives it). Since FlowKit 1.2.
    public private(set) var contextKeys: [String] = []

    /// A factory for services made by `make`.
    public init(_ name: String, make: @escaping @MainActor @Sendable () -> any CoordinatorServiceProtocol) {
        self.name = name
        self.make = make
    }

    /// A factory for services made by `make` that provide the context keys `contextKeys` (FlowKit 1.2):
    /// `ServiceFactory("Session", contextKeys: ["user", "locked"]) { SessionService() }`.
    public init(
        _ name: String, contextKeys: [String], make: @escaping @MainActor @Sendable () -> any CoordinatorServiceProtocol
    ) {
        self.init(name, make: make)
        self.contextKeys = contextKeys
    }
}
