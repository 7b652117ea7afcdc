import FlowManifest

extension HostStats {
    /// `exposures` by experiment, in name order, as `stats` and a `--subjects` run print them: each
    /// experiment `experiments` sets up with every variant, in their order (the control first), 0 for one
    /// nobody was exposed to, so that an arm nobody reached shows as one; then the variants counted that
    /// `experiments` no longer has (a manifest reloaded since), by name.
    package static func exposureCounts(
        _ exposures: [String: [String: Int]], of experiments: [String: Manifest.Experiment]
    ) -> [(experiment: String, variants: [(name: String, count: Int)])] {
        Set(exposures.keys).union(experiments.keys).sorted().map { name in
            let counted = exposures[name] ?? [:]
            let configured = experiments[name]?.variants.map(\.name) ?? []
            let others = counted.keys.filter { !configured.contains($0) }.sorted()
            return (name, (configured + others).map { ($0, counted[$0] ?? 0) })
        }
    }
}
