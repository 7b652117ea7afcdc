import FlowKit

/// A parsed, validated manifest (version 1): which plugins to load, and which plugin's manager handles
/// each coordination request.
///
/// Make one with ``load(path:)`` or ``parse(_:path:)``; both report every problem in the file at once
/// as ``ManifestErrors``. The format is documented in `manifests/README.md`.
package struct Manifest: Sendable, Hashable {
    /// The manifest file as the caller gave it, relative or absolute. Error messages quote it as is.
    package var path: String
    /// The absolute, lexically normalised directory that holds the manifest. Relative paths in the
    /// manifest are resolved against it.
    package var directory: String
    /// The format version; always 1 for a manifest this host accepted.
    package var manifestVersion: Int
    /// A display name for the app, if the manifest gives one.
    package var name: String?
    /// Directories to search for plugin libraries, first to last: absolute and lexically normalised,
    /// relative ones resolved against ``directory``. Empty when the manifest gives none.
    package var pluginPath: [String]
    /// Those of ``pluginPath`` the manifest wrote as relative paths, as resolved there: one missing is most
    /// likely written as if read from where flowhost runs, which an absolute one cannot be.
    package var relativePluginPath: Set<String> = []
    /// The declared plugins by name.
    package var plugins: [String: PluginEntry]
    /// The routes, in the order the manifest lists them.
    package var routes: [Route]
    /// Services to start, in the order the manifest lists them.
    package var services: [ServiceRef]
    /// Requests to send once the plugins are loaded, in order.
    package var start: [CoordinationRequest]
    /// The experiments routes may point to, by name.
    package var experiments: [String: Experiment]
    /// URL patterns and the requests they open, tried in the manifest's order.
    package var deepLinks: DeepLinkMapping
    /// The guards the host installs on its root coordinator, in the manifest's order.
    package var guards: [RedirectGuard]
    /// How long a service that awaits may take to start or stop; `nil` for FlowKit's default (5 s).
    package var serviceTimeout: Duration?
    /// Where plugin libraries are discovered (`discover`), in order; empty when the manifest names every
    /// plugin itself. See ``PluginComposition``.
    package var discover: [Discovery]
    /// Discovered plugins and declared routes the manifest leaves out (`exclude`).
    package var exclude: Exclusions
    /// Which plugin's declared route wins where several plugins declare the same one (`prefer`).
    package var prefer: [RouteSelector]

    /// Creates a manifest from parts that are assumed to be valid already.
    package init(
        path: String,
        directory: String,
        manifestVersion: Int = 1,
        name: String? = nil,
        pluginPath: [String] = [],
        plugins: [String: PluginEntry] = [:],
        routes: [Route] = [],
        services: [ServiceRef] = [],
        start: [CoordinationRequest] = [],
        experiments: [String: Experiment] = [:],
        deepLinks: DeepLinkMapping = DeepLinkMapping(),
        guards: [RedirectGuard] = [],
        serviceTimeout: Duration? = nil,
        discover: [Discovery] = [],
        exclude: Exclusions = Exclusions(),
        prefer: [RouteSelector] = []
    ) {
        self.path = path
        self.directory = directory
        self.manifestVersion = manifestVersion
        self.name = name
        self.pluginPath = pluginPath
        self.plugins = plugins
        self.routes = routes
        self.services = services
        self.start = start
        self.experiments = experiments
        self.deepLinks = deepLinks
        self.guards = guards
        self.serviceTimeout = serviceTimeout
        self.discover = discover
        self.exclude = exclude
        self.prefer = prefer
    }
}

extension Manifest {
    /// The manifest format version this host reads.
    package static let supportedVersion = 1

    /// A plugin the manifest declares: the dynamic library to load for it.
    package struct PluginEntry: Sendable, Hashable {
        /// The name routes and services use to refer to the plugin (its key in `plugins`).
        package var name: String
        /// The library as written: a bare file name, searched for along the plugin path, or a path.
        package var library: String
        /// The expected SHA-256 of the library file as 64 lowercase hexadecimal digits, if given.
        package var sha256: String?

        /// Creates a plugin entry.
        package init(name: String, library: String, sha256: String? = nil) {
            self.name = name
            self.library = library
            self.sha256 = sha256
        }
    }

    /// A routing rule: `request`, when sent by `module` (or by anyone), is handled by a plugin's manager or
    /// by the variants of an experiment.
    package struct Route: Sendable, Hashable {
        /// Where a route sends its request.
        package enum Target: Sendable, Hashable {
            /// The manager `manager` of the declared plugin `plugin`.
            case manager(plugin: String, manager: String)
            /// The experiment of that name, which picks a variant per subject.
            case experiment(String)
        }

        /// The request this route handles.
        package var request: CoordinationRequestName
        /// The module the request must come from (the manifest's `from`), or `nil` for any module.
        package var module: Coordinated?
        /// Where the request goes.
        package var target: Target
        /// The route's position in the manifest's `routes` array, for messages such as `routes[2]`.
        package var index: Int

        /// A route to `manager` of `plugin`.
        package init(
            request: CoordinationRequestName, module: Coordinated? = nil, plugin: String, manager: String, index: Int
        ) {
            self.init(
                request: request, module: module, target: .manager(plugin: plugin, manager: manager), index: index)
        }

        /// A route to the experiment `experiment`.
        package init(request: CoordinationRequestName, module: Coordinated? = nil, experiment: String, index: Int) {
            self.init(request: request, module: module, target: .experiment(experiment), index: index)
        }

        /// A route to `target`.
        package init(request: CoordinationRequestName, module: Coordinated?, target: Target, index: Int) {
            self.request = request
            self.module = module
            self.target = target
            self.index = index
        }

        /// The plugin, for a route to a manager.
        package var plugin: String? {
            if case .manager(let plugin, _) = target { return plugin }
            return nil
        }

        /// The manager, for a route to a manager.
        package var manager: String? {
            if case .manager(_, let manager) = target { return manager }
            return nil
        }
    }

    /// An A/B experiment: a route to it sends each subject to one variant, chosen by weight, for good.
    package struct Experiment: Sendable, Hashable {
        /// One arm of the experiment.
        package struct Variant: Sendable, Hashable {
            /// The variant's name, as exposures and `stats` report it.
            package var name: String
            /// The declared plugin providing the manager.
            package var plugin: String
            /// The manager that handles the request for subjects in this variant.
            package var manager: String
            /// The relative share of subjects; 0 takes no new subjects.
            package var weight: Int

            package init(name: String, plugin: String, manager: String, weight: Int) {
                self.name = name
                self.plugin = plugin
                self.manager = manager
                self.weight = weight
            }
        }

        /// The experiment's name (its key in `experiments`).
        package var name: String
        /// The dotted path in the context that identifies a subject, such as `user.id`.
        package var subject: String
        /// Mixed into the assignment hash; change it to reshuffle every subject.
        package var salt: String
        /// The variants, in the manifest's order; the first is the control.
        package var variants: [Variant]

        package init(name: String, subject: String, salt: String, variants: [Variant]) {
            self.name = name
            self.subject = subject
            self.salt = salt
            self.variants = variants
        }
    }

    /// A service to start: `service` as provided by the declared plugin `plugin`.
    package struct ServiceRef: Sendable, Hashable {
        /// The name of the declared plugin that provides the service.
        package var plugin: String
        /// The name of the service, as the plugin registers it.
        package var service: String

        /// Creates a service reference.
        package init(plugin: String, service: String) {
            self.plugin = plugin
            self.service = service
        }

        /// `plugin.Service`, as events report it.
        package var reportedName: String { "\(plugin).\(service)" }
    }
}

extension Manifest {
    /// Every (plugin, manager) the manifest needs: routes' managers and experiment variants'.
    package var managerReferences: [(plugin: String, manager: String)] {
        let routed = routes.compactMap { route in route.plugin.map { ($0, route.manager ?? "") } }
        let variants = experiments.values.sorted { $0.name < $1.name }.flatMap {
            $0.variants.map { ($0.plugin, $0.manager) }
        }
        return routed + variants
    }

    /// A name the manifest needs a plugin to export, and where the manifest says it.
    package struct ExportReference: Sendable, Hashable {
        package var plugin: String
        package var name: String
        /// Whether `name` is a service's; else a manager's.
        package var isService: Bool
        /// Its place in the file (`routes[1].manager`, `services[0].service`); `nil` for a route or service
        /// a plugin declared, which is in no file.
        package var place: String?
    }

    /// Every manager and service the manifest needs its plugins to export, at its place: routes' managers,
    /// experiment variants' and services, in that order.
    ///
    /// - Parameter declared: The manifest as written, where the places of services are counted, when this
    ///   one is composed with what plugins declare (its services are then the file's that are used, then
    ///   those the plugins ask to start).
    /// - Parameter plugins: Only the references to these plugins, when given: their places are the only ones
    ///   written out, which for a manifest of many routes is most of the work.
    package func exportReferences(declared: Manifest? = nil, of plugins: Set<String>? = nil) -> [ExportReference] {
        func wanted(_ plugin: String) -> Bool { plugins?.contains(plugin) ?? true }
        var references = routes.compactMap { route -> ExportReference? in
            guard let plugin = route.plugin, wanted(plugin) else { return nil }
            return ExportReference(
                plugin: plugin, name: route.manager ?? "", isService: false,
                place: route.index >= 0 ? "routes[\(route.index)].manager" : nil)
        }
        for experiment in experiments.values.sorted(by: { $0.name < $1.name }) {
            for (index, variant) in experiment.variants.enumerated() where wanted(variant.plugin) {
                let place = ManifestParser.path("experiments", key: experiment.name) + ".variants[\(index)].manager"
                references.append(
                    ExportReference(plugin: variant.plugin, name: variant.manager, isService: false, place: place))
            }
        }
        let written = (declared ?? self).services
        for service in services where wanted(service.plugin) {
            references.append(
                ExportReference(
                    plugin: service.plugin, name: service.service, isService: true,
                    place: written.firstIndex(of: service).map { "services[\($0)].service" }))
        }
        return references
    }
}
