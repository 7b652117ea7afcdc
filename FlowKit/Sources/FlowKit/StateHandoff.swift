/// A service whose state survives a reload of its plugin, and a snapshot.
///
/// When a host reloads a plugin, it replaces each service that plugin provides with one made by the new
/// generation. If both conform, the old one's ``exportState()`` is given to the new one's
/// ``importState(_:)`` before the new one starts. A ``FlowSnapshot`` saves ``exportState()`` too, and
/// restoring gives it to a new service's ``importState(_:)`` before it starts
/// (``FlowSnapshot/saveState(of:as:)``, ``FlowSnapshot/restoreState(of:as:)``). The state is JSON because the two generations share no
/// Swift types: a new generation cannot cast the old one's objects to its own classes.
@MainActor
public protocol StateHandoff: AnyObject {
    /// The state to carry over, taken just before this service stops for good.
    func exportState() -> JSONValue
    /// Receives the previous generation's state, before ``CoordinatorServiceProtocol/start(with:)``.
    func importState(_ state: JSONValue)
}
