/// A request name that knows its payload's type, so that senders encode and managers decode it without
/// repeating the type at every use. On the wire it is still a plain ``CoordinationRequestName`` with a JSON
/// payload: plugins that do not share the Swift type can send and handle it as usual.
///
/// ```swift
/// struct ItemID: Codable, Sendable { var id: Int }
/// extension TypedRequest where Payload == ItemID {
///     static let showDetail = TypedRequest("catalog.detail")
/// }
/// // a sender:
/// coordinator.requestCoordination(.showDetail, ItemID(id: 2), from: .itemList)
/// // the manager:
/// let item = try request.decode(.showDetail)  // an ItemID
/// ```
public struct TypedRequest<Payload: Codable & Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The name on the wire.
    public let name: CoordinationRequestName

    /// A typed request called `name`.
    public init(_ name: CoordinationRequestName) {
        self.name = name
    }

    /// The request carrying `payload`, encoded as JSON.
    ///
    /// - Throws: ``FlowError`` when the payload cannot be encoded (a non-finite `Double`, say).
    public func callAsFunction(_ payload: Payload) throws(FlowError) -> CoordinationRequest {
        do {
            return CoordinationRequest(name, payload: try JSONValue(encoding: payload))
        } catch {
            throw FlowError("cannot encode the payload of \(name): \(error)")
        }
    }

    /// The payload of `request` as `Payload`.
    ///
    /// - Throws: ``FlowError`` naming the request, what it got and what is wrong, when it has another name or
    ///   its payload does not decode.
    public func decode(_ request: CoordinationRequest) throws(FlowError) -> Payload {
        guard request.name == name else {
            throw FlowError("expected a \(name) request, got \(request.name)")
        }
        do {
            return try request.payload.decode(Payload.self)
        } catch let error as DecodingError {
            throw FlowError("\(name) got an unexpected payload \(request.payload): \(error.summary)")
        } catch {
            throw FlowError("\(name) got an unexpected payload \(request.payload): \(error)")
        }
    }

    /// The request's name, as on the wire.
    public var description: String { name.rawValue }
}

extension CoordinationRequest {
    /// This request's payload decoded as `typed`'s payload type.
    ///
    /// - Throws: ``FlowError`` when the name differs or the payload does not decode.
    public func decode<Payload>(_ typed: TypedRequest<Payload>) throws(FlowError) -> Payload {
        try typed.decode(self)
    }
}

extension CoordinationRequestProtocol {
    /// Asks for `typed` with `payload` on behalf of `module`; a payload that cannot be encoded fails the
    /// request instead of sending it.
    @discardableResult
    public func requestCoordination<Payload>(
        _ typed: TypedRequest<Payload>, _ payload: Payload, from module: Coordinated
    ) -> CoordinationOutcome {
        do {
            return requestCoordination(try typed(payload), from: module)
        } catch {
            return .failed(error)
        }
    }
}

extension FlowModule {
    /// Asks for `typed` with `payload` as this module; a payload that cannot be encoded fails the request
    /// instead of sending it.
    @discardableResult
    public func requestCoordination<Payload>(_ typed: TypedRequest<Payload>, _ payload: Payload) -> CoordinationOutcome
    {
        do {
            let request = try typed(payload)
            return requestCoordination(request.name, payload: request.payload)
        } catch {
            return .failed(error)
        }
    }
}
