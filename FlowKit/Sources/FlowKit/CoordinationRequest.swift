/// A request for coordination: a name plus a JSON-like payload.
///
/// The payload crosses plugin boundaries and often comes from JSON (scripts, manifests, deep links), so it
/// is a ``JSONValue``; decode it into your own type with ``decode(_:)-(T.Type)``.
public struct CoordinationRequest: Sendable, Hashable, CustomStringConvertible {
    /// What is asked for.
    public var name: CoordinationRequestName
    /// The arguments; ``JSONValue/empty`` when there are none.
    ///
    /// A module action's request carries the payload it was given and the action's own members apart, and
    /// merges them when this is read: routing a request never copies its payload, however large.
    public var payload: JSONValue {
        get { arguments?.payload ?? .empty }
        set { arguments = Arguments(newValue) }
    }
    /// The payload, boxed, `nil` when empty: a request is copied into every event, held request and
    /// restoration step, and one without arguments (most are) then copies a word.
    private var arguments: Arguments?

    /// Creates a request.
    public init(_ name: CoordinationRequestName, payload: JSONValue = .empty) {
        self.name = name
        self.arguments = Arguments(payload)
    }

    /// A request whose payload is `defaults` merged with `given`, member by member with `given` winning when
    /// both are objects, else `given` unless it is an empty object (see ``ModuleAction/request(_:_:payload:summary:)``).
    /// The merge waits until the payload is read.
    init(_ name: CoordinationRequestName, payload given: JSONValue, defaults: JSONValue) {
        self.name = name
        switch (defaults, given) {
        case (.object(let base), .object(let members)) where !base.isEmpty && !members.isEmpty:
            self.arguments = Arguments(given: given, defaults: base)
        case (_, .object(let members)) where members.isEmpty:
            self.arguments = Arguments(defaults)
        default:
            self.arguments = Arguments(given)
        }
    }

    /// Whether both have the same name and equal payloads.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.name == rhs.name else { return false }
        switch (lhs.arguments, rhs.arguments) {
        case (nil, nil): return true
        case (let left?, let right?): return left === right || left.payload == right.payload
        default: return false  // an empty payload is never boxed
        }
    }

    /// Hashes the name and the payload.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(payload)
    }

    /// The payload decoded as `type`.
    ///
    /// - Throws: `DecodingError` when the payload does not have that shape.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try payload.decode(type)
    }

    /// The name, then the payload as compact JSON when there is one: `catalog.detail {"id":2}`.
    public var description: String {
        arguments == nil ? name.rawValue : "\(name.rawValue) \(payload)"
    }
}

/// A request's payload: what it was given, and a module action's members it has unless it was given them.
private final class Arguments: Sendable {
    let given: JSONValue
    /// Members the payload has unless ``given`` has them; `nil` unless both are non-empty objects.
    let defaults: [String: JSONValue]?

    /// `payload` boxed; `nil` when it is an empty object.
    convenience init?(_ payload: JSONValue) {
        if case .object(let members) = payload, members.isEmpty { return nil }
        self.init(given: payload, defaults: nil)
    }

    init(given: JSONValue, defaults: [String: JSONValue]?) {
        self.given = given
        self.defaults = defaults
    }

    var payload: JSONValue {
        guard let defaults else { return given }
        return .object(defaults.merging(given.object ?? [:]) { _, given in given })
    }
}
