/// What a ``RequestGuard`` decides about a request.
public enum GuardDecision: Sendable, Hashable, CustomStringConvertible {
    /// Let the request go on: to the next guard, and after the last one to routing.
    case proceed
    /// Replace the request with this one, which the later guards see and routing routes. The guard that
    /// rewrote it does not see the new request.
    case rewrite(CoordinationRequest)
    /// Refuse the request: its outcome is ``CoordinationOutcome/failed(_:)-enum.case`` with this error, prefixed
    /// with the guard's name. Nothing later in the chain sees it.
    case reject(FlowError)
    /// Send this request first, from the same module, and hold the original until the flow it starts
    /// completes; the outcome is ``CoordinationOutcome/redirected(_:)``. See
    /// ``BaseFlowCoordinator/heldRequests`` for when a held request is resumed or dropped.
    case redirect(CoordinationRequest)

    /// `proceed`, `rewrite to catalog.list`, `reject: reason`, `redirect to auth.signIn`.
    public var description: String {
        switch self {
        case .proceed: "proceed"
        case .rewrite(let request): "rewrite to \(request)"
        case .reject(let error): "reject: \(error.message)"
        case .redirect(let request): "redirect to \(request)"
        }
    }
}
