import FlowKit

/// The requests an experiment routes to a variant that failed: a variant whose manager its plugin does not
/// export (a typo in the manifest, a plugin rebuilt without it) fails every request it is given, and its
/// figures then measure the failure, not the variant.
extension ExperimentReport {
    /// A request an experiment routed to a variant, and why it failed, as the trace records it.
    package struct RequestFailure: Sendable, Hashable {
        /// The request's name (`catalog.create`).
        package var request: String
        /// The `failed` event's `error`.
        package var error: String
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
    /// What it keeps is the exposures of the session whose request has not come yet, and the experiments'
    /// requests under way: a few, whatever the size of the session.
    struct RoutedRequests {
        /// experiment -> the variant and depth of its exposure in the session, whose request is the next
        /// event about a request at that depth.
        private var exposed: [String: (variant: String, depth: Int)] = [:]
        /// The experiments' requests a manager started on (`handling`) and that have not ended yet, innermost
        /// last.
        private var underWay: [(experiment: String, variant: String, id: Int?, request: String, depth: Int)] = []

        /// Forgets the session read before: a request never ends in another session.
        mutating func beginSession() {
            exposed = [:]
            underWay = []
        }

        /// Follows `event`, the next event of the session.
        ///
        /// - Returns: The experiment and variant whose request `event` is the failure of, and the failure;
        ///   `nil` when `event` is no such failure.
        mutating func read(_ event: TraceEvent) -> (experiment: String, variant: String, failure: RequestFailure)? {
            let depth = event["depth"]?.int ?? 0
            if event.kind == .exposure, let experiment = event["experiment"]?.string,
                let variant = event["variant"]?.string
            {
                exposed[experiment] = (variant, depth)
                return nil
            }
            guard let request = event["request"]?.string else { return nil }
            let id = event["requestId"]?.int
            var failed: (experiment: String, variant: String)?
            // In the experiments' order, so that the same one is named on every run (one request is one
            // experiment's: two exposures at one depth do not happen).
            for (experiment, exposure) in exposed.sorted(by: { $0.key < $1.key }) where exposure.depth == depth {
                exposed[experiment] = nil
                if event.kind == .failed, failed == nil { failed = (experiment, exposure.variant) }
            }
            switch event.kind {
            case .handling:
                if let experiment = event["experiment"]?.string, let variant = event["variant"]?.string {
                    underWay.append((experiment, variant, id, request, depth))
                }
            case .handled, .failed:
                let index = underWay.lastIndex { started in
                    id.map { started.id == $0 }
                        ?? (started.id == nil && started.request == request && started.depth == depth)
                }
                if let index {
                    let ended = underWay.remove(at: index)
                    if event.kind == .failed { failed = (ended.experiment, ended.variant) }
                }
            default: break
            }
            guard let failed else { return nil }
            return (
                failed.experiment, failed.variant,
                RequestFailure(request: request, error: event["error"]?.string ?? "")
            )
        }
    }
}
