/// The manifest's routes as `flowhost list` shows them: one entry per route, or per variant of the
/// experiment a route points to, with the library that serves it and whether that library is loaded.
public struct RoutingTable: Sendable {
    /// One row: a request, from any module or one, to one manager.
    public struct Entry: Sendable {
        /// The experiment arm a row stands for, when its route points to an experiment.
        public struct Arm: Sendable, Hashable {
            public var experiment: String
            public var variant: String
            public var weight: Int
        }

        public var request: String
        /// The sending module the route is limited to; `nil` for any module.
        public var from: String?
        public var plugin: String
        public var manager: String
        public var arm: Arm?
        /// The library file: where it was loaded or would be found, else as the manifest writes it.
        public var library: String
        public var status: PluginRegistry.Status
        /// Whether a probe in a child process loaded the plugin (``PluginSurvey``), which `status` then
        /// does not show: it is ``PluginRegistry/Status/notLoaded`` in this process.
        public var probed = false
    }

    /// The manifest file, as given.
    public var manifest: String
    /// The rows, in manifest order; an experiment's variants in their order.
    public var entries: [Entry]

    /// The table for `registry`'s manifest, with each plugin's state in `registry` now, or as `survey`'s
    /// probes found it.
    @MainActor
    public init(registry: PluginRegistry, survey: PluginSurvey? = nil) {
        let manifest = registry.manifest
        self.manifest = manifest.path
        func entry(_ route: Manifest.Route, _ plugin: String, _ manager: String, _ arm: Entry.Arm?) -> Entry {
            var entry = Entry(
                request: route.request.rawValue, from: route.module?.rawValue, plugin: plugin, manager: manager,
                arm: arm, library: registry.library(of: plugin) ?? "?",
                status: registry.status(of: plugin) ?? .notLoaded)
            switch survey?.results[plugin] {
            case .success(let probed):
                entry.probed = true
                entry.library = probed.path
            case .failure(let error): entry.status = .failed(error)
            case nil: break
            }
            return entry
        }
        entries = manifest.routes.flatMap { route -> [Entry] in
            switch route.target {
            case .manager(let plugin, let manager):
                return [entry(route, plugin, manager, nil)]
            case .experiment(let name):
                return (manifest.experiments[name]?.variants ?? []).map { variant in
                    entry(
                        route, variant.plugin, variant.manager,
                        Entry.Arm(experiment: name, variant: variant.name, weight: variant.weight))
                }
            }
        }
    }

    /// The table as text cells, a header row first: REQUEST, FROM, PLUGIN, MANAGER, LIBRARY, LOADED.
    public var rows: [[String]] {
        [["REQUEST", "FROM", "PLUGIN", "MANAGER", "LIBRARY", "LOADED"]]
            + entries.map { entry in
                let loaded: String =
                    switch entry.status {
                    case .loaded: "yes"
                    case .failed: "failed"
                    case .notLoaded: entry.probed ? "yes" : "no"
                    }
                let manager = entry.arm.map { "\(entry.manager) [\($0.experiment):\($0.variant) w\($0.weight)]" }
                return [
                    entry.request, entry.from ?? "*", entry.plugin, manager ?? entry.manager, entry.library, loaded,
                ]
            }
    }
}
