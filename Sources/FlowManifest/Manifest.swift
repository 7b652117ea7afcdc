import FlowKit

/// A parsed, validated manifest (version 1): which plugins to load, and which plugin's manager handles
/// each coordination request.
///
/// Make one with ``load(path:)`` or ``parse(_:path:)``; both report every problem in the file at once
/// as ``ManifestErrors``. The format is documented in `manifests/README.md`.
public struct Manifest: Sendable, Hashable {
    /// The manifest file as the caller gave it, relative or absolute. Error messages quote it as is.
    public var path: String
    /// The absolute, lexically normalised directory that holds the manifest. Relative paths in the
    /// manifest are resolved against it.
    public var directory: String
    /// The format version; always 1 for a manifest this host accepted.
    public var manifestVersion: Int
    /// A display name for the app, if the manifest gives one.
    public var name: String?
    /// Directories to search for plugin libraries, first to last: absolute and lexically normalised,
    /// relative ones resolved against ``directory``. Empty when the manifest gives none.
    public var pluginPath: [String]
    /// The declared plugins by name.
    public var plugins: [String: PluginEntry]
    /// The routes, in the order the manifest lists them.
    public var routes: [Route]
    /// Services to start, in the order the manifest lists them.
    public var services: [ServiceRef]
    /// Requests to send once the plugins are loaded, in order.
    public var start: [CoordinationRequest]
    /// The experiments routes may point to, by name.
    public var experiments: [String: Experiment]
    /// URL patterns and the requests they open, tried in the manifest's order.
    public var deepLinks: DeepLinkMapping
    /// The guards the host installs on its root coordinator, in the manifest's order.
    public var guards: [RedirectGuard]
    /// How long a service that awaits may take to start or stop; `nil` for FlowKit's default (5 s).
    public var serviceTimeout: Duration?
    /// Where plugin libraries are discovered (`discover`), in order; empty when the manifest names every
    /// plugin itself. See ``PluginComposition``.
    public var discover: [Discovery]
    /// Discovered plugins and declared routes the manifest leaves out (`exclude`).
    public var exclude: Exclusions
    /// Which plugin's declared route wins where several plugins declare the same one (`prefer`).
    public var prefer: [RouteSelector]

    /// Creates a manifest from parts that are assumed to be valid already.
    public init(
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
    public static let supportedVersion = 1

    /// A plugin the manifest declares: the dynamic library to load for it.
    public struct PluginEntry: Sendable, Hashable {
        /// The name routes and services use to refer to the plugin (its key in `plugins`).
        public var name: String
        /// The library as written: a bare file name, searched for along the plugin path, or a path.
        public var library: String
        /// The expected SHA-256 of the library file as 64 lowercase hexadecimal digits, if given.
        public var sha256: String?

        /// Creates a plugin entry.
        public init(name: String, library: String, sha256: String? = nil) {
            self.name = name
            self.library = library
            self.sha256 = sha256
        }
    }

    /// A routing rule: `request`, when sent by `module` (or by anyone), is handled by a plugin's manager or
    /// by the variants of an experiment.
    public struct Route: Sendable, Hashable {
        /// Where a route sends its request.
        public enum Target: Sendable, Hashable {
            /// The manager `manager` of the declared plugin `plugin`.
            case manager(plugin: String, manager: String)
            /// The experiment of that name, which picks a variant per subject.
            case experiment(String)
        }

        /// The request this route handles.
        public var request: CoordinationRequestName
        /// The module the request must come from (the manifest's `from`), or `nil` for any module.
        public var module: Coordinated?
        /// Where the request goes.
        public var target: Target
        /// The route's position in the manifest's `routes` array, for messages such as `routes[2]`.
        public var index: Int

        /// A route to `manager` of `plugin`.
        public init(
            request: CoordinationRequestName, module: Coordinated? = nil, plugin: String, manager: String, index: Int
        ) {
            self.init(
                request: request, module: module, target: .manager(plugin: plugin, manager: manager), index: index)
        }

        /// A route to the experiment `experiment`.
        public init(request: CoordinationRequestName, module: Coordinated? = nil, experiment: String, index: Int) {
            self.init(request: request, module: module, target: .experiment(experiment), index: index)
        }

        /// A route to `target`.
        public init(request: CoordinationRequestName, module: Coordinated?, target: Target, index: Int) {
            self.request = request
            self.module = module
            self.target = target
            self.index = index
        }

        /// The plugin, for a route to a manager.
        public var plugin: String? {
            if case .manager(let plugin, _) = target { return plugin }
            return nil
        }

        /// The manager, for a route to a manager.
        public var manager: String? {
            if case .manager(_, let manager) = target { return manager }
            return nil
        }
    }

    /// An A/B experiment: a route to it sends each subject to one variant, chosen by weight, for good.
    public struct Experiment: Sendable, Hashable {
        /// One arm of the experiment.
        public struct Variant: Sendable, Hashable {
            /// The variant's name, as exposures and `stats` report it.
            public var name: String
            /// The declared plugin providing the manager.
            public var plugin: String
            /// The manager that handles the request for subjects in this variant.
            public var manager: String
            /// The relative share of subjects; 0 takes no new subjects.
            public var weight: Int

            public init(name: String, plugin: String, manager: String, weight: Int) {
                self.name = name
                self.plugin = plugin
                self.manager = manager
                self.weight = weight
            }
        }

        /// The experiment's name (its key in `experiments`).
        public var name: String
        /// The dotted path in the context that identifies a subject, such as `user.id`.
        public var subject: String
        /// Mixed into the assignment hash; change it to reshuffle every subject.
        public var salt: String
        /// The variants, in the manifest's order; the first is the control.
        public var variants: [Variant]

        public init(name: String, subject: String, salt: String, variants: [Variant]) {
            self.name = name
            self.subject = subject
            self.salt = salt
            self.variants = variants
        }
    }

    /// A service to start: `service` as provided by the declared plugin `plugin`.
    public struct ServiceRef: Sendable, Hashable {
        /// The name of the declared plugin that provides the service.
        public var plugin: String
        /// The name of the service, as the plugin registers it.
        public var service: String

        /// Creates a service reference.
        public init(plugin: String, service: String) {
            self.plugin = plugin
            self.service = service
        }

        /// `plugin.Service`, as events report it.
        public var reportedName: String { "\(plugin).\(service)" }
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
}
