/// The common guard: requests matching some patterns are redirected to another request unless a
/// condition holds, and resumed once the redirect's flow has made it hold.
///
/// ```swift
/// coordinator.addGuard(RedirectGuard(
///     name: "signedIn", requests: [try RequestPattern("catalog.*")], unless: .context("user"),
///     redirect: CoordinationRequest("auth.signIn")))
/// ```
///
/// The manifest's `guards` entries are guards of this kind. A redirect target that itself matches the
/// patterns is not redirected again while it is being sent (see ``BaseFlowCoordinator/heldRequests``).
public struct RedirectGuard: Sendable, Hashable, CustomStringConvertible {
    /// The name events give the guard.
    public var name: String
    /// The requests the guard applies to; it lets every other request through.
    public var requests: [RequestPattern]
    /// While this holds, the guard lets every request through.
    public var unless: GuardCondition
    /// What to send instead, from the same module, while ``unless`` does not hold.
    public var redirect: CoordinationRequest

    /// A guard that redirects `requests` to `redirect` unless `unless` holds.
    public init(name: String, requests: [RequestPattern], unless: GuardCondition, redirect: CoordinationRequest) {
        self.name = name
        self.requests = requests
        self.unless = unless
        self.redirect = redirect
    }

    /// `catalog.* unless context user: redirect to auth.signIn`.
    public var description: String {
        "\(requests.map(\.text).joined(separator: ", ")) unless \(unless): redirect to \(redirect)"
    }
}

extension RedirectGuard: RequestGuard {
    /// Redirects `request` to ``redirect`` when one of ``requests`` matches its name and ``unless`` does not
    /// hold in `coordinator`; lets it proceed otherwise.
    public func decide(_ request: CoordinationRequest, from module: Coordinated, in coordinator: any FlowCoordinator)
        -> GuardDecision
    {
        guard requests.contains(where: { $0.matches(request.name) }), !unless.holds(in: coordinator) else {
            return .proceed
        }
        return .redirect(redirect)
    }
}
