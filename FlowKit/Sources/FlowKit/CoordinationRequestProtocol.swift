/// What a module is given to ask for coordination.
///
/// A module never knows which module comes next: it names itself and what it wants, and the coordinator
/// decides. ``BaseFlowCoordinator`` conforms; inject it into modules as this protocol.
@MainActor
public protocol CoordinationRequestProtocol: AnyObject {
    /// Asks for `request` on behalf of `module`.
    ///
    /// - Returns: What became of the request. Never traps, whatever the request.
    @discardableResult
    func requestCoordination(_ request: CoordinationRequest, from module: Coordinated) -> CoordinationOutcome
}

extension CoordinationRequestProtocol {
    /// Asks for the request `name` with `payload` on behalf of `module`.
    @discardableResult
    public func requestCoordination(
        _ name: CoordinationRequestName, payload: JSONValue = .empty, from module: Coordinated
    ) -> CoordinationOutcome {
        requestCoordination(CoordinationRequest(name, payload: payload), from: module)
    }
}
