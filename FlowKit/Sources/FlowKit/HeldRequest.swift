/// A request a guard redirected, held until the flow its redirect started completes.
///
/// It is the payload of ``CoordinationOutcome/redirected(_:)`` and of the events that say what became of
/// it: ``FlowEvent/held(_:)``, then either ``FlowEvent/resuming(_:)`` or
/// ``FlowEvent/redirectCancelled(_:reason:)``. Compare ``id``s to follow one request through them.
public struct HeldRequest: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Unique among the requests held in one coordinator tree.
    public var id: Int
    /// The request that was redirected, as the guard saw it.
    public var request: CoordinationRequest
    /// The module that asked for it; the redirect is sent, and the request resumed, from it.
    public var module: Coordinated
    /// The request sent instead, whose flow the held request waits for.
    public var redirect: CoordinationRequest
    /// The name of the guard that redirected it.
    public var guardName: String

    /// A held request; the coordinator makes these.
    public init(
        id: Int, request: CoordinationRequest, module: Coordinated, redirect: CoordinationRequest, guardName: String
    ) {
        self.id = id
        self.request = request
        self.module = module
        self.redirect = redirect
        self.guardName = guardName
    }

    /// `catalog.detail from welcome, redirected to auth.signIn by guard 'signedIn'`.
    public var description: String {
        "\(request.name) from \(module), redirected to \(redirect.name) by guard '\(guardName)'"
    }
}
