/// A request for coordination: a name plus a JSON-like payload.
///
/// The payload crosses plugin boundaries and often comes from JSON (scripts, manifests, deep links), so it
/// is a ``JSONValue``; decode it into your own type with ``decode(_:)``.
public struct CoordinationRequest: Sendable, Hashable, CustomStringConvertible {
    /// What is asked for.
    public var name: CoordinationRequestName
    /// The arguments; ``JSONValue/empty`` when there are none.
    public var payload: JSONValue

    /// Creates a request.
    public init(_ name: CoordinationRequestName, payload: JSONValue = .empty) {
        self.name = name
        self.payload = payload
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
