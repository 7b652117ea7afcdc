import FlowKit

/// What a ``Host`` puts between its coordinator's events and its own listeners: it counts each event into
/// the stats and hands it on, as it is to ``onFlowEvent`` when there is one, else as ``HostEvent/flow(_:)``.
///
/// The coordinator's listener (``listen(to:)``) captures it strongly, and it holds the host and the coordinator
/// weakly: it reaches for the host only for breadcrumbs and for services named as the manifest names them.
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
            listenerChanges += 1
            coordinator?.onEventToKeep = listener()
        }
    }
    /// The coordinator whose events the relay hears (``listen(to:)``).
    private weak var coordinator: BaseFlowCoordinator?
    /// How many times ``handOn`` changed: the listener a coordinator keeps hands events to the one it was made
    /// with while this is what it was then.
    private var listenerChanges = 0
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

    /// Has `coordinator`'s events counted and handed on from now on.
    func listen(to coordinator: BaseFlowCoordinator) {
        self.coordinator = coordinator
        coordinator.onEventToKeep = listener()
    }

    /// The coordinator's listener: it hands each event to the relay with the listener ``handOn`` is now, which it
    /// holds, so that the relay calls that listener without reading ``handOn``. Read from a property, a closure is
    /// retained and released around every call (a listener may replace itself while it runs), two atomic
    /// operations an event; held by the coordinator's listener, which FlowKit calls as it is kept, it is
    /// borrowed. Made again when ``handOn`` changes; a request under way, which took the coordinator's listener
    /// before, hears the new one through ``listenerChanges``.
    private func listener() -> @MainActor (consuming FlowEvent) -> Void {
        let listener = handOn
        let made = listenerChanges
        let other: @MainActor (consuming FlowEvent) -> Void = { [self] event in
            self.listener(for: event)(consume event)
        }
        return { [self] (event: consuming FlowEvent) in
            self.relay(consume event, to: listener, else: other, madeAt: made)
        }
    }

    /// Counts `event` and hands it on: to `listener`, made when ``listenerChanges`` was `made`, or to `other`
    /// (``target(for:_:else:madeAt:)``).
    ///
    /// The event is only looked at (borrowed) before it is handed on, in one call whatever it is, its listener
    /// picked by a call: a FlowKit enum handed on along two paths, changed, or looked at by a choice made in this
    /// frame, is moved into a copy of its own first, one more move through FlowKit's value witnesses for every
    /// event.
    private func relay(
        _ event: consuming FlowEvent, to listener: @escaping @MainActor (consuming FlowEvent) -> Void,
        else other: @escaping @MainActor (consuming FlowEvent) -> Void, madeAt made: Int
    ) {
        target(for: event, listener, else: other, madeAt: made)(event)
    }

    /// Counts `event` if it is of the kinds every handled request has (``isRequestEventCounted(_:)``), and
    /// returns the listener to hand it to: `listener`, for those kinds while ``listenerChanges`` is still `made`;
    /// else `other`, which counts the others and reads ``handOn`` (``listener(for:)``). Both are the
    /// coordinator listener's, borrowed: the one returned is not retained.
    private func target(
        for event: borrowing FlowEvent, _ listener: @escaping @MainActor (consuming FlowEvent) -> Void,
        else other: @escaping @MainActor (consuming FlowEvent) -> Void, madeAt made: Int
    ) -> @MainActor (consuming FlowEvent) -> Void {
        isRequestEventCounted(event) && made == listenerChanges ? listener : other
    }

    /// Keeps the breadcrumb in step with `event`, and counts it into the stats if it is of the five kinds every
    /// handled request has; whether it is.
    ///
    /// The event's kind says all the relay needs, read without copying the event (a FlowKit enum). A switch
    /// over a FlowKit enum compares its tag with the cases it names in the order FlowKit declares them,
    /// whatever the order here: this one names only the five kinds every handled request has, which come
    /// out of it after at most five comparisons, and leaves the others to ``listener(for:)``.
    private func isRequestEventCounted(_ event: borrowing FlowEvent) -> Bool {
        if tracksBreadcrumbs { host?.noteForBreadcrumb(event) }
        switch event.kind {
        case .handling, .presented, .removed, .managerEnded: return true
        case .handled:
            countHandled(by: event.manager ?? "")
            return true
        default: return false
        }
    }

    /// The listener to hand `event` to, counted into the stats when it is not of the kinds
    /// ``isRequestEventCounted(_:)`` counts, taken before the call: a listener may replace itself while it runs.
    @inline(never)
    private func listener(for event: borrowing FlowEvent) -> @MainActor (consuming FlowEvent) -> Void {
        switch event.kind {
        case .handling, .presented, .removed, .managerEnded, .handled: break
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
