/// How a child flow ended, as the coordinator that opened it learns in `onResult`.
///
/// ```swift
/// coordinator.openChild(flow, style: .modal) { result in
///     if case .completed(let item) = result { list.insert(item) }
/// }
/// // in the child, when the person saves:
/// flow.finish(with: .completed(["id": 4, "title": "Tent"]))
/// ```
@frozen
public enum FlowResult: Sendable, Hashable, CustomStringConvertible {
    /// The flow did what it was opened for, producing `value` (`null` when it produces nothing).
    case completed(JSONValue)
    /// The person left before it completed: dismissed or backed out of it, or its opener ended first.
    case cancelled
    /// The flow could not complete.
    case failed(FlowError)

    /// The flow completed with `value` encoded as JSON.
    ///
    /// - Throws: The encoding error, such as for a non-finite `Double`.
    public static func completed(encoding value: some Encodable) throws -> FlowResult {
        .completed(try JSONValue(encoding: value))
    }

    /// The flow could not complete because of `error`, any error: a ``FlowError`` as it is, any other as
    /// its description (``FlowError/init(wrapping:)``): `finish(with: .failed(error))` in a `catch`.
    public static func failed(_ error: some Error) -> FlowResult {
        let wrapped = FlowError(wrapping: error)
        return FlowResult.failed(wrapped)
    }

    /// The value of a completed flow; `nil` for a cancelled or failed one.
    public var value: JSONValue? {
        if case .completed(let value) = self { return value }
        return nil
    }

    /// Whether the flow completed.
    public var isCompleted: Bool { value != nil }

    /// `completed {"id":4}`, `completed`, `cancelled` or `failed: reason`.
    public var description: String {
        switch self {
        case .completed(.null): "completed"
        case .completed(let value): "completed \(value)"
        case .cancelled: "cancelled"
        case .failed(let error): "failed: \(error.message)"
        }
    }
}
