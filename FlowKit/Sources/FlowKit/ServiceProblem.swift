/// A service that failed to start, or did not start or stop within its coordinator's
/// ``BaseFlowCoordinator/serviceTimeout``. The coordinator goes on with the other services.
public struct ServiceProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// Its `start(with:)` threw.
        case startFailed(FlowError)
        /// Its `start(with:)` had not returned after the timeout; it was cancelled.
        case startTimedOut(Duration)
        /// Its `stop()` had not returned after the timeout; it was cancelled.
        case stopTimedOut(Duration)
    }

    /// The service, by its type's name; a host may give it a better one, as `flowhost` gives the
    /// manifest's (`auth.Session`).
    public var service: String
    /// What went wrong.
    public var kind: Kind

    /// A problem of `service`.
    public init(service: String, kind: Kind) {
        self.service = service
        self.kind = kind
    }

    /// `service 'auth.Session' did not stop within 5 s; raise serviceTimeout if it needs longer`, and the like.
    public var description: String {
        switch kind {
        case .startFailed(let error): "service '\(service)' failed to start: \(error.message)"
        case .startTimedOut(let timeout):
            "service '\(service)' did not start within \(timeout.secondsText); raise serviceTimeout if it needs longer"
        case .stopTimedOut(let timeout):
            "service '\(service)' did not stop within \(timeout.secondsText); raise serviceTimeout if it needs longer"
        }
    }
}

extension Duration {
    /// `5 s`, `0.25 s`: seconds, to the millisecond.
    var secondsText: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(Double(milliseconds) / 1000) s"
    }
}
