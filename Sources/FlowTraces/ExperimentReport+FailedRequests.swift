import FlowKit

/// The requests an experiment routes to a variant that failed: a variant whose manager its plugin does not
/// export (a typo in the manifest, a plugin rebuilt without it) fails every request it is given, and its
/// figures then measure the failure, not the variant.
extension ExperimentReport {
    /// A request an experiment routed to a variant, and why it failed, as the trace records it.
    package struct RequestFailure: Sendable, Hashable {
        /// The request's name (`catalog.create`); `nil` when the host ended between the exposure and the
        /// request's first event, which alone names it.
        package var request: String?
        /// The `failed` event's `error`, or how the host ended (``hostEnded(_:)``).
        package var error: String

        /// The failure of the experiments' requests under way when a supervised run's host ended (`hostEnded`):
        /// `the host crashed in plugin 'crashy'`, `the host hung`, and so on, with the plugin the supervisor laid
        /// the end at, when it names one. The supervisor's own line, in the event's `error`, is about the
        /// request the host was in, which need not be the experiment's.
        static func hostEnded(_ event: TraceEvent, request: String?) -> RequestFailure {
            let how =
                switch event["ending"]?.string {
                case "crash": "crashed"
                case "hang": "hung"
                case "exit": "exited"
                case "stop": "was stopped"
                default: "ended"
                }
            let plugin = event["plugin"]?.string.map { " in plugin '\($0)'" } ?? ""
            return RequestFailure(request: request, error: "the host \(how)\(plugin)")
        }
    }

    /// Follows the requests experiments route in the session being read, and tells which of them failed.
    ///
    /// A trace records such a request in one of two ways. A manager that could not be made (its plugin does
    /// not export it) leaves `exposure` then `failed`, with neither `handling` between them nor the
    /// experiment or variant in `failed`: the request is the next event about a request at the exposure's
    /// `depth`. A manager that was made has `handling` name its `experiment` and `variant`, and the request's
    /// `handled` or `failed` has the same `requestId` (the same name and `depth`, in a trace written before
    /// requests had ids).
    ///
    /// A supervised run's host that ended (`hostEnded`: a crash, a hang, an exit) ended every such request under
    /// way with it, and the exposures whose request had not come yet: each is a failure of its variant, whose
    /// error says how the host ended. A host restarted at the snapshot starts none of them again.
    ///
    /// What it keeps is the exposures of the session whose request has not come yet, and the experiments'
    /// requests under way: a few, whatever the size of the session. Each is indexed (by depth; by id, or name
    /// and depth) so that an event costs, amortized, the same however many are kept: a crafted trace of many
    /// requests under way, or of many exposures whose request never comes, reports in time linear in its size.
    struct RoutedRequests {
        /// The exposures of the session whose request has not come yet.
        private var exposed = PendingExposures()
        /// The experiments' requests a manager started on (`handling`) and that have not ended yet.
        private var underWay = RequestsUnderWay()

        /// Forgets the session read before: a request never ends in another session.
        mutating func beginSession() {
            exposed = PendingExposures()
            underWay = RequestsUnderWay()
        }

        /// Follows `event`, the next event of the session.
        ///
        /// - Returns: The experiments and variants whose request `event` is the failure of, each with its
        ///   failure: one for a `failed` event, every one under way or exposed for a `hostEnded`; empty when
        ///   `event` ends no such request.
        mutating func read(_ event: TraceEvent) -> [(experiment: String, variant: String, failure: RequestFailure)] {
            if event.kind == .hostEnded { return endAll(event) }
            let depth = event["depth"]?.int ?? 0
            if event.kind == .exposure, let experiment = event["experiment"]?.string,
                let variant = event["variant"]?.string
            {
                exposed.expose(experiment, to: variant, at: depth)
                return []
            }
            guard let request = event["request"]?.string else { return [] }
            let key = RequestsUnderWay.Key(id: event["requestId"]?.int, request: request, depth: depth)
            // Every exposure at the event's depth is the event's, and done with; the first in the experiments'
            // order is named, so that the same one is on every run (one request is one experiment's: two
            // exposures at one depth do not happen).
            let exposures = exposed.take(at: depth)
            var failed = event.kind == .failed ? exposures.first : nil
            switch event.kind {
            case .handling:
                if let experiment = event["experiment"]?.string, let variant = event["variant"]?.string {
                    underWay.start(.init(experiment: experiment, variant: variant, request: request), key: key)
                }
            case .handled, .failed:
                if let ended = underWay.end(key), event.kind == .failed { failed = (ended.experiment, ended.variant) }
            default: break
            }
            guard let failed else { return [] }
            return [
                (
                    failed.experiment, failed.variant,
                    RequestFailure(request: request, error: event["error"]?.string ?? "")
                )
            ]
        }

        /// Ends, as failures, the requests under way and the exposures whose request has not come, when the
        /// host ended (`hostEnded`), innermost request first, then the exposures in the experiments' order.
        private mutating func endAll(
            _ ended: TraceEvent
        ) -> [(experiment: String, variant: String, failure: RequestFailure)] {
            let requests = underWay.endAll().map {
                ($0.experiment, $0.variant, RequestFailure.hostEnded(ended, request: $0.request))
            }
            let exposures = exposed.takeAll().map {
                ($0.experiment, $0.variant, RequestFailure.hostEnded(ended, request: nil))
            }
            return requests + exposures
        }
    }
}
