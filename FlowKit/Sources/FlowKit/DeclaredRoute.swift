/// A route a plugin proposes: `request`, when sent by `from` (or by any module), handled by its manager
/// `manager`.
///
/// A manifest that discovers the plugin (its `discover` key) adds the routes the plugin declares; the
/// manifest's own routes override them, and it can exclude them. A manifest that names the plugin in
/// `plugins` without discovering anything routes it by hand, as before, and ignores these.
///
/// A route a child flow's own mapping holds (``childFlow``) is declared for graphs and `inspect` only: no
/// manifest routes it.
///
/// ```swift
/// routes: [
///     DeclaredRoute(.showGreeting, manager: "Greeting"),
///     DeclaredRoute(.signIn, from: .checkout, manager: quickSignIn),  // a ManagerFactory: its name, once
///     DeclaredRoute(.tourPage, manager: tourPage, inChildFlow: "tour"),  // the tour flow's own mapping
/// ]
/// ```
public struct DeclaredRoute: Sendable, Hashable {
    /// The request the route handles.
    public var request: CoordinationRequestName
    /// The module the request must come from, or `nil` for any module.
    public var from: Coordinated?
    /// The manager that handles it: one the plugin exports (``PluginDescription/managers``), by name.
    public var manager: String
    /// The child flow whose own mapping holds the route (the name of its coordinator, which it also sends
    /// requests as), or `nil` for a route a manifest takes. Since FlowKit 1.3.
    public var childFlow: Coordinated? = nil

    /// Proposes that `request` (from `from`, or from any module) goes to the plugin's manager `manager`.
    public init(_ request: CoordinationRequestName, from: Coordinated? = nil, manager: String) {
        self.request = request
        self.from = from
        self.manager = manager
    }

    /// Proposes that `request` (from `from`, or from any module) goes to the manager `manager` makes, one of
    /// the plugin's ``PluginDescription/managers``: its name is the factory's, written once. Since FlowKit
    /// 1.2.
    public init(_ request: CoordinationRequestName, from: Coordinated? = nil, manager: ManagerFactory) {
        self.init(request, from: from, manager: manager.name)
    }

    /// Declares that the child flow `flow` routes `request` (from `from`, or from any module) to the manager
    /// `manager` makes, in its own mapping: for graphs and `inspect`, not for manifests. Export `manager`
    /// too (``PluginDescription/managers``), so that a reload reaches the open flow. Since FlowKit 1.3.
    public init(
        _ request: CoordinationRequestName, from: Coordinated? = nil, manager: ManagerFactory,
        inChildFlow flow: Coordinated
    ) {
        self.init(request, from: from, manager: manager.name)
        self.childFlow = flow
    }
}
