/// A route a plugin proposes: `request`, when sent by `from` (or by any module), handled by its manager
/// `manager`.
///
/// A manifest that discovers the plugin (its `discover` key) adds the routes the plugin declares; the
/// manifest's own routes override them, and it can exclude them. A manifest that names the plugin in
/// `plugins` without discovering anything routes it by hand, as before, and ignores these.
///
/// ```swift
/// routes: [
///     DeclaredRoute(.showGreeting, manager: "Greeting"),
///     DeclaredRoute(.signIn, from: .checkout, manager: quickSignIn),  // a ManagerFactory: its name, once
/// ]
/// ```
public struct DeclaredRoute: Sendable, Hashable {
    /// The request the route handles.
    public var request: CoordinationRequestName
    /// The module the request must come from, or `nil` for any module.
    public var from: Coordinated?
    /// The manager that handles it: one the plugin exports (``PluginDescription/managers``), by name.
    public var manager: String

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
}
