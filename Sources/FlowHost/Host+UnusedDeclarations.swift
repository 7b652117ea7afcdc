import FlowComposition
import FlowManifest
import PluginLoading

/// What the plugins of a manifest that lists them declare and it does not use: what a failing `open`
/// points at when the link it wanted is one of them.
extension Host {
    /// For each plugin of a manifest that lists its plugins and discovers none, what it declares that the
    /// manifest does not use; empty for a manifest that discovers. A plugin not loaded yet is probed (its
    /// probe is most often cached) unless the host runs without probes (`--trust`); one that failed to load
    /// or cannot be probed is left out.
    package var unusedDeclarations: [UnusedDeclarations] {
        guard composition == nil else { return [] }
        return manifest.plugins.sorted { $0.key < $1.key }.compactMap { name, entry in
            let probe: ProbedPlugin
            switch registry.status(of: name) {
            case .loaded(let plugin)?:
                probe = ProbedPlugin(plugin)
            case .failed?, nil:
                return nil
            case .notLoaded?:
                guard let prober = registry.prober, let library = registry.library(of: name),
                    let probed = try? prober.probe(library, pin: entry.sha256)
                else { return nil }
                probe = probed
            }
            return UnusedDeclarations(plugin: name, probe: probe, manifest: manifest)
        }
    }
}
