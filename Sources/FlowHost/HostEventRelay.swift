import FlowKit

/// What a ``Host`` puts between its coordinator's events and its own listener: it counts each event into
/// the stats and hands it on as ``HostEvent/flow(_:)``.
///
/// The coordinator's listener captures it strongly: a host's request path runs several events per request
/// through it, so it must not load the host weakly for each (the relay holds the host weakly, and reaches
/// for it only for breadcrumbs and for services named as the manifest names them), nor copy an event to
/// rename services it does not mention, nor retain the listener for each event.
@MainActor
final class HostEventRelay {
    /// The host's listener, boxed so that relaying an event calls it without retaining its closure.
    fileprivate final class Listener {
        let receive: @MainActor (HostEvent) -> Void
        init(_ receive: @escaping @MainActor (HostEvent) -> Void) { self.receive = receive }
    }

    /// Counters of what happened since the host was made.
    @exclusivity(unchecked) var stats = HostStats()
    /// The host's listener (``Host/onEvent``).
    var onEvent: (@MainActor (HostEvent) -> Void)? {
        get { listener?.receive }
        set {
            // A listener may replace itself while it is being called: keep it until it has returned.
            if relaying > 0, let listener { replaced.append(listener) }
            listener = newValue.map(Listener.init)
            unretainedListener = listener.map(Unmanaged.passUnretained)
        }
    }
    /// Whether the host has a ``Host/breadcrumb`` to keep in step with the events.
    @exclusivity(unchecked) var tracksBreadcrumbs = false
    weak var host: Host?

    @exclusivity(unchecked) private var listener: Listener?
    /// ``listener``, which holds it.
    @exclusivity(unchecked) private var unretainedListener: Unmanaged<Listener>?
    /// How many events are being handed to the listener (one inside another when a listener causes one).
    @exclusivity(unchecked) private var relaying = 0
    /// Listeners replaced while an event was being handed on, kept until none is.
    @exclusivity(unchecked) private var replaced: [Listener] = []

    /// Counts `event` and hands it on.
    func relay(_ event: FlowEvent) {
        if tracksBreadcrumbs { host?.noteForBreadcrumb(event) }
        stats.count(event)
        guard let unretainedListener else { return }
        if event.namesService { return hand(host?.namingServices(event) ?? event, to: unretainedListener) }
        hand(event, to: unretainedListener)
    }

    /// Hands `event` to the listener, unretained: a listener replaced meanwhile is kept until it returns.
    @inline(__always)
    private func hand(_ event: FlowEvent, to listener: Unmanaged<Listener>) {
        relaying &+= 1
        listener.withGuaranteed { $0.receive(.flow(event)) }
        relaying &-= 1
        if relaying == 0, !replaced.isEmpty { replaced.removeAll() }
    }
}

extension Unmanaged {
    /// Calls `body` with the instance, neither retained nor released around the call (FlowKit's request
    /// path has the same). Not isolated, so that a closure written in main-actor code is passed on as a
    /// plain function value: handed to `_withUnsafeGuaranteedRef` directly, it gets a dynamic check that
    /// it runs on the main actor, which costs more than the retain it saves.
    @inline(__always)
    fileprivate func withGuaranteed<Result>(_ body: (Instance) -> Result) -> Result {
        _withUnsafeGuaranteedRef(body)
    }
}

extension FlowEvent {
    /// Whether the event names a service by its type, which the host renames as the manifest names it.
    fileprivate var namesService: Bool {
        switch self {
        case .serviceStarted, .serviceStopped, .serviceProblem: true
        default: false
        }
    }
}
