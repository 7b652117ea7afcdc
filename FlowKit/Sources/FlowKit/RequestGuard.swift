/// Sees every request before it is routed and decides what becomes of it: let it proceed, rewrite it,
/// reject it, or redirect it (send another request first and resume this one once that flow completes).
///
/// Install guards on a coordinator with ``BaseFlowCoordinator/addGuard(_:)`` or
/// ``BaseFlowCoordinator/guards``. They form an ordered chain: the ancestors' guards first, the root's
/// first of all, then the coordinator's own, as children inherit routes. A coordinator tree with no
/// guard pays one `nil` check per request.
///
/// ```swift
/// struct SignedIn: RequestGuard {
///     let name = "signedIn"
///     func decide(_ request: CoordinationRequest, from module: Coordinated, in coordinator: any FlowCoordinator)
///         -> GuardDecision
///     {
///         guard request.name.rawValue.hasPrefix("catalog."), coordinator.context["user"] == nil else {
///             return .proceed
///         }
///         return .redirect(CoordinationRequest("auth.signIn"))
///     }
/// }
/// coordinator.addGuard(SignedIn())
/// ```
///
/// ``RedirectGuard`` is the ready-made guard for that common case. A guard may be asked about the same
/// request more than once (a held request is asked about again when its redirect's flow completes), so
/// keep ``decide(_:from:in:)`` cheap and free of side effects.
@MainActor
public protocol RequestGuard {
    /// The name events and errors give the guard, such as `signedIn`.
    var name: String { get }

    /// Decides about `request`, which `module` asked `coordinator` for.
    ///
    /// - Returns: ``GuardDecision/proceed`` to pass it to the next guard (and, after the last, to routing),
    ///   or another decision.
    func decide(_ request: CoordinationRequest, from module: Coordinated, in coordinator: any FlowCoordinator)
        -> GuardDecision
}

/// A guard made of a closure, for guards too small to deserve a type.
///
/// ```swift
/// coordinator.addGuard(ClosureGuard("noAdmin") { request, _, _ in
///     request.name.rawValue.hasPrefix("admin.") ? .reject(FlowError("admin screens are not in this build")) : .proceed
/// })
/// ```
public struct ClosureGuard: RequestGuard {
    /// The name events and errors give the guard.
    public let name: String
    private let body: @MainActor (CoordinationRequest, Coordinated, any FlowCoordinator) -> GuardDecision

    /// A guard called `name` that decides with `decide`.
    public init(
        _ name: String,
        decide: @escaping @MainActor (CoordinationRequest, Coordinated, any FlowCoordinator) -> GuardDecision
    ) {
        self.name = name
        self.body = decide
    }

    /// Decides with the closure the guard was made with.
    public func decide(_ request: CoordinationRequest, from module: Coordinated, in coordinator: any FlowCoordinator)
        -> GuardDecision
    {
        body(request, module, coordinator)
    }
}
