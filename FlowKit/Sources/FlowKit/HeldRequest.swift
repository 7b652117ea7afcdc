/// A request a guard redirected, held until the flow its redirect started completes.
///
/// It is the payload of ``CoordinationOutcome/redirected(_:)`` and of the events that say what became of
/// it: ``FlowEvent/held(_:)``, then either ``FlowEvent/resuming(_:)`` or
/// ``FlowEvent/redirectCancelled(_:reason:)``. Compare ``id``s to follow one request through them.
public struct HeldRequest: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Unique among the requests held in one coordinator tree.
    public var id: Int {
        get { storage.id }
        set { update { $0.id = newValue } }
    }
    /// The request that was redirected, as the guard saw it.
    public var request: CoordinationRequest {
        get { storage.request }
        set { update { $0.request = newValue } }
    }
    /// The module that asked for it; the redirect is sent, and the request resumed, from it.
    public var module: Coordinated {
        get { storage.module }
        set { update { $0.module = newValue } }
    }
    /// The request sent instead, whose flow the held request waits for.
    public var redirect: CoordinationRequest {
        get { storage.redirect }
        set { update { $0.redirect = newValue } }
    }
    /// The name of the guard that redirected it.
    public var guardName: String {
        get { storage.guardName }
        set { update { $0.guardName = newValue } }
    }

    /// The fields, boxed: a held request is the largest payload of ``CoordinationOutcome`` and of several
    /// ``FlowEvent``s, which every request returns or builds, so one word here keeps them small.
    private var storage: Storage

    private struct Fields: Hashable {
        var id: Int
        var request: CoordinationRequest
        var module: Coordinated
        var redirect: CoordinationRequest
        var guardName: String
    }

    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
        var id: Int { fields.id }
        var request: CoordinationRequest { fields.request }
        var module: Coordinated { fields.module }
        var redirect: CoordinationRequest { fields.redirect }
        var guardName: String { fields.guardName }
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }

    /// A held request; the coordinator makes these.
    public init(
        id: Int, request: CoordinationRequest, module: Coordinated, redirect: CoordinationRequest, guardName: String
    ) {
        storage = Storage(Fields(id: id, request: request, module: module, redirect: redirect, guardName: guardName))
    }

    /// Whether both have the same id, request, module, redirect and guard.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }

    /// `catalog.detail from welcome, redirected to auth.signIn by guard 'signedIn'`.
    public var description: String {
        "\(request.name) from \(module), redirected to \(redirect.name) by guard '\(guardName)'"
    }
}
