import FlowKit

/// What a ``Host`` puts between its coordinator's events and its own listener: it counts each event into
/// the stats and hands it on as ``HostEvent/flow(_:)``.
///
/// The coordinator's listener captures it strongly, and it holds the host weakly: it reaches for the host
/// only for breadcrumbs and for services named as the manifest names them.
@MainActor
final class HostEventRelay {
    /// Counters of what happened since the host was made.
    var stats = HostStats()
    /// The host's listener (``Host/onEvent``).
    var onEvent: (@MainActor (consuming HostEvent) -> Void)?
    /// Whether the host has a ``Host/breadcrumb`` to keep in step with the events.
    var tracksBreadcrumbs = false
    weak var host: Host?

    /// Counts `event` and hands it on.
    func relay(_ event: consuming FlowEvent) {
        if tracksBreadcrumbs { host?.noteForBreadcrumb(event) }
        // The event's kind says all the relay needs, read without copying the event (a FlowKit enum).
        var entry: HostStats.Entry?
        var namesService = false
        switch event.kind {
        case .handled: entry = .handled(by: event.manager ?? "")
        case .unhandled: entry = .unhandled
        case .failed: entry = .failed
        case .queued: entry = .queued
        case .deadLettered: entry = .deadLettered
        case .serviceStarted, .serviceStopped, .serviceProblem: namesService = true
        default: break
        }
        if let entry { stats.count(entry) }
        // Taken before the call: a listener may replace itself while it runs.
        guard let onEvent else { return }
        if namesService, let host {
            onEvent(.flow(host.namingServices(event)))
        } else {
            onEvent(.flow(consume event))
        }
    }
}
