/// The exposures ``ExperimentReport/RoutedRequests`` keeps until their request comes.
extension ExperimentReport {
    /// The exposures of a session whose request has not come yet, kept by depth so that an event about a
    /// request costs the exposures at its own depth only: an exposure's request is the next event about a
    /// request at the exposure's depth, and a trace may hold many exposures at depths no request reaches, which
    /// a search of them all on every event made quadratic.
    struct PendingExposures {
        /// depth -> experiment -> the variant it exposed the subject to, for the exposures not yet taken; a
        /// depth with none has no entry.
        private var byDepth: [Int: [String: String]] = [:]
        /// experiment -> the depth of its exposure in ``byDepth``, so that an experiment exposed again moves:
        /// only its last exposure awaits a request.
        private var depths: [String: Int] = [:]

        /// Records `experiment`'s exposure to `variant` at `depth`, in place of any earlier one of the
        /// experiment's.
        mutating func expose(_ experiment: String, to variant: String, at depth: Int) {
            if let earlier = depths[experiment] { remove(experiment, at: earlier) }
            depths[experiment] = depth
            byDepth[depth, default: [:]][experiment] = variant
        }

        /// Takes the exposures at `depth`, whose request an event at that depth is.
        ///
        /// - Returns: The experiments and their variants, in the experiments' name order, so that the same one
        ///   comes first on every run.
        mutating func take(at depth: Int) -> [(experiment: String, variant: String)] {
            guard let taken = byDepth.removeValue(forKey: depth) else { return [] }
            for experiment in taken.keys { depths[experiment] = nil }
            return Self.inNameOrder(taken)
        }

        /// Takes every exposure, at any depth: the host ended before their requests came.
        ///
        /// - Returns: The experiments and their variants, in the experiments' name order.
        mutating func takeAll() -> [(experiment: String, variant: String)] {
            let all = byDepth.values.reduce(into: [:]) { all, atDepth in all.merge(atDepth) { $1 } }
            self = PendingExposures()
            return Self.inNameOrder(all)
        }

        /// Forgets `experiment`'s exposure at `depth`, and the depth when it holds no other.
        private mutating func remove(_ experiment: String, at depth: Int) {
            byDepth[depth]?[experiment] = nil
            if byDepth[depth]?.isEmpty == true { byDepth[depth] = nil }
        }

        /// `exposures` (experiment -> variant) as pairs in the experiments' name order.
        private static func inNameOrder(_ exposures: [String: String]) -> [(experiment: String, variant: String)] {
            exposures.sorted { $0.key < $1.key }.map { (experiment: $0.key, variant: $0.value) }
        }
    }
}
