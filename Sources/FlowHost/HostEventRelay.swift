import FlowKit

/// What a ``Host`` puts between its coordinator's events and its own listener: it counts each event into
/// the stats and hands it on as ``HostEvent/flow(_:)``.
///
/// The coordinator's listener captures it strongly: a host's request path runs several events per request
/// through it, so it must not load the host weakly for each (the relay holds the host weakly, and reaches
/// for it only for breadcrumbs and for services named as the manifest names them), nor copy an event to
/// rename services it does not mention.
@MainActor
final class HostEventRelay {
    /// Counters of what happened since the host was made.
    @exclusivity(unchecked) var stats = HostStats()
    /// The host's listener (``Host/onEvent``).
    @exclusivity(unchecked) var onEvent: (@MainActor (HostEvent) -> Void)?
    /// Whether the host has a ``Host/breadcrumb`` to keep in step with the events.
    @exclusivity(unchecked) var tracksBreadcrumbs = false
    weak var host: Host?

    /// Counts `event` and hands it on.
    func relay(_ event: FlowEvent) {
        if tracksBreadcrumbs { host?.noteForBreadcrumb(event) }
        stats.count(event)
        guard let onEvent else { return }
        switch event {
        case .serviceStarted, .serviceStopped, .serviceProblem:
            onEvent(.flow(host?.namingServices(event) ?? event))
        default:
            onEvent(.flow(event))
        }
    }
}
