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
        start: [CoordinationRequest] = []
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

    /// A routing rule: `request`, when sent by `module` (or by anyone), is handled by `manager` of `plugin`.
    public struct Route: Sendable, Hashable {
        /// The request this route handles.
        public var request: CoordinationRequestName
        /// The module the request must come from (the manifest's `from`), or `nil` for any module.
        public var module: Coordinated?
        /// The name of the declared plugin that provides the manager.
        public var plugin: String
        /// The name of the manager, as the plugin registers it.
        public var manager: String
        /// The route's position in the manifest's `routes` array, for messages such as `routes[2]`.
        public var index: Int

        /// Creates a route.
        public init(
            request: CoordinationRequestName, module: Coordinated? = nil, plugin: String, manager: String, index: Int
        ) {
            self.request = request
            self.module = module
            self.plugin = plugin
            self.manager = manager
            self.index = index
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
    }
}
