import FlowKit
import FlowManifest

extension PluginComposition {
    /// A manifest that lists its plugins, as the composition it amounts to: each plugin it lists in use, from
    /// the library `libraries` names for it (its entry's, when `libraries` has none), each of its routes,
    /// guards and deep links its own. What a host ran before an edit turned its manifest to discovering
    /// plugins, to tell what the edit changed: which plugins it brings in, whose services then start.
    package init(listing manifest: Manifest, libraries: [String: String]) {
        declared = manifest
        self.manifest = manifest
        plugins = manifest.plugins.sorted { $0.key < $1.key }.map { name, entry in
            Plugin(name: name, library: libraries[name] ?? entry.library, directory: nil, probe: nil, state: .active)
        }
        loadOrder = plugins.map(\.name)
        for route in manifest.routes { sources[RouteKey(route.request, from: route.module)] = .manifest }
        for guardEntry in manifest.guards { guardSources[guardEntry.name] = .manifest }
        for link in manifest.deepLinks.routes { deepLinkSources[link.pattern.description] = .manifest }
    }
}
