/// What waits on a request besides whoever sent it, passed along with the request from where it is asked to
/// where it is handled, queued or held: the rest of the deep link it is a step of, and who wants to hear how
/// the manager that handles it ends.
///
/// Passed rather than parked on the root coordinator while the request is routed, so that a request sent
/// meanwhile (by a manager's `start`, a redirect, a guard) can never take what belongs to another.
@MainActor
struct RequestContinuation {
    /// The steps after this one, when the request is a deep link step: they run once it is handled, wait
    /// with it when it is queued or held, and are dropped with it.
    var deepLink: PendingDeepLink?
    /// Called when the manager made for the request ends, see
    /// ``BaseFlowCoordinator/requestCoordination(_:from:onResult:)``. Not carried to a request a guard
    /// rewrites, queues or redirects.
    var onResult: (@MainActor (FlowResult) -> Void)?

    /// Nothing waits: a request sent on its own.
    static var none: RequestContinuation { RequestContinuation() }
}
