import FlowComposition

extension HostStats {
    /// Where a plugin stands, as `stats` says it. A plugin's slot outlives its use (an image cannot be
    /// unloaded), so one that discovery took out of use, or that a manifest edit dropped, is said so, rather
    /// than by what its slot still holds.
    package enum PluginStatus: Sendable, Hashable {
        case notLoaded, loaded, failed
        /// Its library was removed from its discovered directory while the host ran (its routes fail), or a
        /// manifest edit dropped it from `plugins`.
        case removed
        /// Left out by the manifest's `exclude.plugins`, after it served.
        case excluded
        /// Refused by discovery after it served: a requirement is no longer met.
        case refused

        /// `notLoaded`, `loaded`, `failed`, `removed`, `excluded` or `refused`, as `stats --json` says it.
        package var name: String {
            switch self {
            case .notLoaded: "notLoaded"
            case .loaded: "loaded"
            case .failed: "failed"
            case .removed: "removed"
            case .excluded: "excluded"
            case .refused: "refused"
            }
        }

        /// As `stats` writes it: `not loaded`, `loaded`, ...
        package var words: String {
            switch self {
            case .notLoaded: "not loaded"
            default: name
            }
        }
    }
}

extension Host {
    /// Where plugin `name` stands for `stats`: what discovery made of it when it is not in use (removed,
    /// excluded, refused), removed when a manifest edit dropped it, else its status in the registry.
    package func statsStatus(of name: String) -> HostStats.PluginStatus {
        if let composition {
            if let plugin = composition.plugin(named: name) {
                switch plugin.state {
                case .removed: return .removed
                case .refused(let error): return deletedLibraries[name]?.error == error ? .removed : .refused
                default: break
                }
            } else if composition.plugins.contains(where: { plugin in
                if case .excluded = plugin.state { plugin.name == name } else { false }
            }) {
                return .excluded
            }
        }
        // Dropped from `plugins` by a manifest edit (one that discovers, or not): its slot outlives it.
        if registry.declares(name), !registry.isInUse(name) { return .removed }
        switch registry.status(of: name) {
        case .loaded: return .loaded
        case .failed: return .failed
        case .notLoaded, nil: return .notLoaded
        }
    }
}
