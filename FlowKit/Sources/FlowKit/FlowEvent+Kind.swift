/// Which event a ``FlowEvent`` is, read without copying it: what a listener that counts or filters events
/// looks at. From outside FlowKit, a `switch` over the event itself copies it first (FlowEvent's layout is
/// FlowKit's own), so a listener that hands each event on looks at its ``FlowEvent/kind`` instead.
extension FlowEvent {
    /// An event's case, without its payload. Kinds grow with the events (a later FlowKit 1.x adds both):
    /// a `switch` over a kind ends with `default`, as one over an event does. Since FlowKit 1.2.
    public enum Kind: Sendable, Hashable {
        /// The kinds of the events about a request: how it was routed and what became of it. Each kind is the
        /// ``FlowEvent`` case of the same name.
        case handling, handled, unhandled, queued, replaying, deadLettered, failed
        /// The kinds of the events about the presentation and child flows.
        case presented, removed, childOpened, childFinished
        /// The kinds of the events about services and dependencies.
        case serviceStarted, serviceStopped, dependencySet
        /// The kinds of the events about guards and the requests they hold.
        case rewritten, redirecting, held, resuming, redirectCancelled
        /// The kinds of the events about managers' ends and services' problems.
        case managerEnded, managerTaskFailed, presentRefused, serviceProblem
        /// The kind of ``FlowEvent/lifecycleDelivered(_:to:)``. Since FlowKit 1.4.
        case lifecycleDelivered
    }

    /// Which event this is. Since FlowKit 1.2.
    public var kind: Kind {
        switch self {
        case .handling: .handling
        case .handled: .handled
        case .unhandled: .unhandled
        case .queued: .queued
        case .replaying: .replaying
        case .deadLettered: .deadLettered
        case .failed: .failed
        case .presented: .presented
        case .removed: .removed
        case .childOpened: .childOpened
        case .childFinished: .childFinished
        case .serviceStarted: .serviceStarted
        case .serviceStopped: .serviceStopped
        case .dependencySet: .dependencySet
        case .rewritten: .rewritten
        case .redirecting: .redirecting
        case .held: .held
        case .resuming: .resuming
        case .redirectCancelled: .redirectCancelled
        case .managerEnded: .managerEnded
        case .managerTaskFailed: .managerTaskFailed
        case .presentRefused: .presentRefused
        case .serviceProblem: .serviceProblem
        case .lifecycleDelivered: .lifecycleDelivered
        }
    }

    /// The manager a ``handling(_:from:manager:coordinator:)`` or ``handled(_:from:manager:coordinator:)``
    /// event names; `nil` for any other. Since FlowKit 1.2.
    public var manager: String? {
        switch self {
        case .handling(_, _, let manager, _), .handled(_, _, let manager, _): manager
        default: nil
        }
    }
}
