import FlowManifest
import PluginLoading

extension PluginComposition {
    /// `manifest` composed with what its `discover` directories hold: the one way the host, `validate`,
    /// `list` and `graph` compose. Nil when the manifest discovers nothing, so that one without `discover`
    /// costs nothing.
    ///
    /// - Parameters:
    ///   - prober: Reads what each library declares, in a probe: discovery never loads one into this
    ///     process. A standard prober when none is given.
    ///   - allowInsecurePlugins: Lets the prober take libraries others could replace.
    ///   - previous: The composition this one follows while the host runs (see
    ///     ``init(manifest:discovery:previous:awaiting:refusing:)``).
    ///   - awaiting: The libraries of plugins in use that vanished and are waited for (see
    ///     ``init(manifest:discovery:previous:awaiting:refusing:)``).
    /// - Returns: The composition; after `previous`, with each library refused whose new declarations leave
    ///   a request the manifest sends unrouted (``droppedRoutes(after:)``) or name a manager or service it no
    ///   longer exports (``brokenRebuilds(after:)``), its previous declarations kept.
    @MainActor
    package static func discovered(
        by manifest: Manifest, searchPath: PluginSearchPath, prober: PluginProber? = nil,
        allowInsecurePlugins: Bool = false, previous: PluginComposition? = nil, awaiting: Set<String> = []
    ) -> PluginComposition? {
        guard manifest.discovers else { return nil }
        let prober = prober ?? .standard()
        if allowInsecurePlugins { prober.allowInsecure = true }
        let discovery = PluginDiscovery(manifest: manifest, searchPath: searchPath, prober: prober)
        var composition = PluginComposition(
            manifest: manifest, discovery: discovery, previous: previous, awaiting: awaiting)
        guard let previous else { return composition }
        // A rebuilt library that would leave unrouted what the manifest sends is refused, as a manifest edit
        // doing so is, and so is one that declares what it no longer exports (``brokenRebuilds(after:)``): its
        // plugin keeps its last build's declarations. A refusal changes the composition, so
        // it is checked again, until no other library is refused (each library is refused once at most).
        var refusing: [String: PluginLoadError] = [:]
        while true {
            let refusals = composition.droppedRoutes(after: previous).merging(
                composition.brokenRebuilds(after: previous), uniquingKeysWith: { first, _ in first })
            let dropped = refusals.filter { refusing[$0.key] == nil }
            if dropped.isEmpty { return composition }
            refusing.merge(dropped) { first, _ in first }
            composition = PluginComposition(
                manifest: manifest, discovery: discovery, previous: previous, awaiting: awaiting, refusing: refusing)
        }
    }

    /// The warning lines, for the manifest `file`, of what discovery found that leaves the manifest valid:
    /// each directory that holds no plugin library, then each `libraries` name without wildcards that names
    /// no file. One list, so that `validate`, `run` and `graph` print the same lines.
    package func discoveryWarnings(file: String) -> [String] {
        emptyDirectories.map { $0.warning(file: file) } + unmatchedLibraries.map { $0.warning(file: file) }
    }
}
