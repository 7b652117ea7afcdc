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
    var onFlowEvent: (@MainActor (consuming FlowEvent) -> Void)? {
        // Not `onFlowEvent ?? wrapping`: through the generic `??`, the listener would come out wrapped in two
        // reabstraction thunks, two more calls for every event.
        didSet {
            if let onFlowEvent { handOn = onFlowEvent } else { handOn = wrapping }
        }
    }
    /// Whether the host has a ``Host/breadcrumb`` to keep in step with the events.
    var tracksBreadcrumbs = false
    weak var host: Host?

    /// Where an event goes once counted: ``onFlowEvent``, else ``wrapping``.
    private var handOn: @MainActor (consuming FlowEvent) -> Void = { _ in }
    /// Hands an event to ``onEvent``, wrapped, as ``onEvent`` is when it is called.
    private var wrapping: @MainActor (consuming FlowEvent) -> Void = { _ in }
    /// Hands an event about a service on with the service named as the manifest names it.
    private var namingServices: @MainActor (consuming FlowEvent) -> Void = { _ in }

    init() {
        // Weakly: the relay keeps these closures, which would otherwise keep it.
        wrapping = { [weak self] event in self?.handOnWrapped(event) }
        namingServices = { [weak self] event in self?.handOnNamingServices(event) }
        handOn = wrapping
    }

    /// Counts `event` and hands it on.
    ///
    /// The event is only looked at (borrowed) before it is handed on, in one call whatever it is: a FlowKit
    /// enum handed on along two paths, or changed, is moved into a copy of its own in this frame first, one
    /// more move through FlowKit's value witnesses for every event.
    func relay(_ event: consuming FlowEvent) {
        listener(for: event)(event)
    }

    /// Counts `event` into the stats and keeps the breadcrumb in step with it; returns the listener to hand
    /// it to, taken before the call: a listener may replace itself while it runs.
    ///
    /// The event's kind says all the relay needs, read without copying the event (a FlowKit enum). A switch
    /// over a FlowKit enum compares its tag with the cases it names in the order FlowKit declares them,
    /// whatever the order here: this one names only the five kinds every handled request has, which come
    /// out of it after at most five comparisons, and leaves the others to ``listener(forOther:)``.
    private func listener(for event: borrowing FlowEvent) -> @MainActor (consuming FlowEvent) -> Void {
        if tracksBreadcrumbs { host?.noteForBreadcrumb(event) }
        switch event.kind {
        case .handling, .presented, .removed, .managerEnded: return handOn
        case .handled:
            countHandled(by: event.manager ?? "")
            return handOn
        default: return listener(forOther: event)
        }
    }

    /// ``listener(for:)`` for the kinds a request does not always have.
    @inline(never)
    private func listener(forOther event: borrowing FlowEvent) -> @MainActor (consuming FlowEvent) -> Void {
        switch event.kind {
        case .unhandled: changeStats { $0.count(.unhandled) }
        case .failed: changeStats { $0.count(.failed) }
        case .queued: changeStats { $0.count(.queued) }
        case .deadLettered: changeStats { $0.count(.deadLettered) }
        case .serviceStarted, .serviceStopped, .serviceProblem, .lifecycleDelivered: return namingServices
        default: break
        }
        return handOn
    }

    /// Hands `event`, about a service, on with the service named as the manifest names it (by its type, it
    /// is all FlowKit knows).
    private func handOnNamingServices(_ event: consuming FlowEvent) {
        if let host { event = host.namingServices(event) }
        if let onFlowEvent { return onFlowEvent(event) }
        handOnWrapped(event)
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
