import FlowManifest
import PluginLoading

extension PluginComposition {
    /// A manifest that lists its plugins, as the composition it amounts to: each plugin it lists, at the
    /// library `libraries` names for it (its entry's, when `libraries` has none), in use unless `failures` has
    /// why it failed to load; each of its routes its own. What a host ran before an edit turned its manifest to
    /// discovering plugins, to tell what the edit changed: the plugins it brings in, whose services then start.
    package init(listing manifest: Manifest, libraries: [String: String], failures: [String: PluginLoadError]) {
        declared = manifest
        self.manifest = manifest
        plugins = manifest.plugins.sorted { $0.key < $1.key }.map { name, entry in
            Plugin(
                name: name, library: libraries[name] ?? entry.library, directory: nil, probe: nil,
                state: failures[name].map { .refused($0) } ?? .active)
        }
        for route in manifest.routes { sources[RouteKey(route.request, from: route.module)] = .manifest }
    }
}
