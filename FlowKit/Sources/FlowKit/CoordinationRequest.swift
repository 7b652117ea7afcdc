/// A request for coordination: a name plus a JSON-like payload.
///
/// The payload crosses plugin boundaries and often comes from JSON (scripts, manifests, deep links), so it
/// is a ``JSONValue``; decode it into your own type with ``decode(_:)``.
public struct CoordinationRequest: Sendable, Hashable, CustomStringConvertible {
    /// What is asked for.
    public var name: CoordinationRequestName
    /// The arguments; ``JSONValue/empty`` when there are none.
    ///
    /// A module action's request carries the payload it was given and the action's own members apart, and
    /// merges them when this is read: routing a request never copies its payload, however large.
    public var payload: JSONValue {
        get {
            guard let defaults else { return given }
            return .object(defaults.merging(given.object ?? [:]) { _, given in given })
        }
        set {
            given = newValue
            defaults = nil
        }
    }
    /// The payload, or with ``defaults`` the members that win over them.
    private var given: JSONValue
    /// Members the payload has unless ``given`` has them; `nil` unless both are non-empty objects.
    private var defaults: [String: JSONValue]?

    /// Creates a request.
    public init(_ name: CoordinationRequestName, payload: JSONValue = .empty) {
        self.name = name
        self.given = payload
    }

    /// A request whose payload is `defaults` merged with `given`, member by member with `given` winning when
    /// both are objects, else `given` unless it is an empty object (see ``ModuleAction/request(_:_:payload:summary:)``).
    /// The merge waits until the payload is read.
    init(_ name: CoordinationRequestName, payload given: JSONValue, defaults: JSONValue) {
        self.name = name
        switch (defaults, given) {
        case (.object(let base), .object(let members)) where !base.isEmpty && !members.isEmpty:
            self.given = given
            self.defaults = base
        case (_, .object(let members)) where members.isEmpty:
            self.given = defaults
        default:
            self.given = given
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.name == rhs.name else { return false }
        if lhs.defaults == nil, rhs.defaults == nil { return lhs.given == rhs.given }
        if lhs.defaults == rhs.defaults, lhs.given == rhs.given { return true }
        return lhs.payload == rhs.payload
    }

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

    public var description: String {
        payload == .empty ? name.rawValue : "\(name.rawValue) \(payload)"
    }
}
