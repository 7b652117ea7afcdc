/// What became of a coordination request. Every request has exactly one.
///
/// FlowKit 2 added ``redirected(_:)``; a `switch` without `default` needs a case for it.
public enum CoordinationOutcome: Sendable, Hashable, CustomStringConvertible {
    /// A manager took it; `manager` is the name it was registered under.
    case handled(manager: String)
    /// No coordinator in the chain had a manager for it; the unhandled-request handler was told.
    case unhandled
    /// Its manager needs dependencies that are not set yet; it will be replayed when they are.
    case queued(waitingFor: [DependencyKey])
    /// A manager was found but could not do its work, or a guard rejected the request.
    case failed(FlowError)
    /// A guard sent another request first (``HeldRequest/redirect``) and holds this one until that
    /// request's flow completes: then it is resumed, or dropped if the flow was cancelled. The events
    /// ``FlowEvent/resuming(_:)`` and ``FlowEvent/redirectCancelled(_:reason:)`` tell which.
    case redirected(HeldRequest)

    /// A manager could not do its work because of `error`, any error: a ``FlowError`` as it is, any other
    /// as its description (``FlowError/init(wrapping:)``). What a module action returns when what it did
    /// threw: `return .failed(error)`.
    public static func failed(_ error: some Error) -> CoordinationOutcome {
        let wrapped = FlowError(wrapping: error)
        return CoordinationOutcome.failed(wrapped)
    }

    /// Whether a manager took the request.
    public var isHandled: Bool {
        if case .handled = self { return true }
        return false
    }

    /// Whether the request waits for dependencies.
    public var isQueued: Bool {
        if case .queued = self { return true }
        return false
    }

    /// Whether a guard redirected the request and holds it.
    public var isRedirected: Bool {
        if case .redirected = self { return true }
        return false
    }

    /// One line, as the shell prints it: `handled by catalog.Home`, `unhandled`,
    /// `queued until catalog.store is set`, `failed: MESSAGE` or `redirected to auth.signIn`.
    public var description: String {
        switch self {
        case .handled(let manager): "handled by \(manager)"
        case .unhandled: "unhandled"
        case .queued(let keys): "queued until \(keys.map(\.rawValue).joined(separator: ", ")) is set"
        case .failed(let error): "failed: \(error.message)"
        case .redirected(let held): "redirected to \(held.redirect.name)"
        }
    }
}

/// An error in a flow, carried as text so that it crosses plugin boundaries and compares in tests.
public struct FlowError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line, lowercase, quoting the offending value.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) { self.message = message }

    /// Wraps any error: a `FlowError` stays as it is, a `DecodingError` says in one line where and why
    /// (`cannot decode: id: expected an integer (Int) but found a string`), any other error becomes its
    /// description.
    public init(wrapping error: any Error) {
        switch error {
        case let error as FlowError: self = error
        case let error as DecodingError: self = FlowError("cannot decode: \(error.summary)")
        default: self = FlowError(String(describing: error))
        }
    }

    /// The ``message``.
    public var description: String { message }
}
