import FlowKit

/// What a ``Host`` puts between its coordinator's events and its own listeners: it counts each event into
/// the stats and hands it on, as it is to ``onFlowEvent`` when there is one, else as ``HostEvent/flow(_:)``.
///
/// The coordinator's listener captures it strongly, and it holds the host weakly: it reaches for the host
/// only for breadcrumbs and for services named as the manifest names them.
@MainActor
final class HostEventRelay {
    /// Counters of what happened since the host was made. Changed only while moved out (see
    /// ``changeStats(_:)``), so that no access to them is checked for exclusivity at run time.
    private(set) var stats = HostStats()
    /// The host's listener (``Host/onEvent``).
    var onEvent: (@MainActor (consuming HostEvent) -> Void)?
    /// The host's listener of flow events (``Host/onFlowEvent``).
    var onFlowEvent: (@MainActor (consuming FlowEvent) -> Void)?
    /// Whether the host has a ``Host/breadcrumb`` to keep in step with the events.
    var tracksBreadcrumbs = false
    weak var host: Host?

    /// Counts `event` and hands it on.
    func relay(_ event: consuming FlowEvent) {
        if tracksBreadcrumbs { host?.noteForBreadcrumb(event) }
        // The event's kind says all the relay needs, read without copying the event (a FlowKit enum). It is
        // compared with the cases in the order they are written: the kinds every request has, which count
        // nothing, come first (otherwise each of them is compared with every counted kind).
        switch event.kind {
        case .handling, .presented, .removed, .managerEnded: break
        case .handled: countHandled(by: event.manager ?? "")
        case .unhandled: changeStats { $0.count(.unhandled) }
        case .failed: changeStats { $0.count(.failed) }
        case .queued: changeStats { $0.count(.queued) }
        case .deadLettered: changeStats { $0.count(.deadLettered) }
        case .serviceStarted, .serviceStopped, .serviceProblem:
            if let host { event = host.namingServices(event) }
        default: break
        }
        // To the listener of flow events as it is, or wrapped to the listener of every event; each listener
        // is taken before the call: a listener may replace itself while it runs.
        if let onFlowEvent { return onFlowEvent(consume event) }
        handOnWrapped(consume event)
    }

    /// Hands `event` to the listener of every event, wrapped: apart, so that the relay's own frame has no
    /// room for a ``HostEvent`` to make (a FlowKit enum inside makes its size known only at run time).
    @inline(never)
    private func handOnWrapped(_ event: consuming FlowEvent) {
        guard let onEvent else { return }
        onEvent(.flow(consume event))
    }

    /// Changes the stats: as FlowKit's router changes its layers, they are moved out of ``stats`` (empty
    /// ones take their place), changed, and moved back.
    ///
    /// Changed in place, every access to ``stats`` would be checked for exclusivity at run time: a change
    /// calls code the compiler cannot prove stays off them. Moved, no access spans the change, and the
    /// compiler proves all of them exclusive.
    func changeStats<Result>(_ change: (inout HostStats) -> Result) -> Result {
        var changing = HostStats()
        swap(&changing, &stats)
        defer { swap(&changing, &stats) }
        return change(&changing)
    }

    /// Counts a request `manager` handled, as ``changeStats(_:)`` changes the stats but moving only their
    /// tally of handled requests, which an empty one (two empty arrays) replaces meanwhile: the request
    /// path's count.
    private func countHandled(by manager: String) {
        var tally = HostStats.HandledTally()
        swap(&tally, &stats.handledTally)
        tally.count(by: manager)
        swap(&tally, &stats.handledTally)
    }
}
