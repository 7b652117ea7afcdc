import FlowKit
import FlowManifest
import PluginLoading

/// A manifest that discovers plugins, composed with what they declare: the manifest the host then runs,
/// and where each of its routes comes from.
///
/// The rules (manifests/README.md, "Discovery"):
///
/// - **Plugins**: every plugin library in a discovered directory, and every plugin the manifest declares
///   in `plugins` (which decides the library, and may pin it, for a plugin of that name). A discovered
///   plugin named in `exclude.plugins` is left out; a second library of the same plugin is a problem and
///   only the first is used.
/// - **Requirements**: a plugin whose ``FlowKit/PluginDescription/requires`` names a plugin that is not
///   there, of a version outside the range, refused itself, or that requires it back (a cycle) is refused:
///   it is not loaded, and its routes fail with the one-line reason. The others are loaded, and their
///   services started, requirements first (ties by name).
/// - **Routes**: the manifest's own routes, then every route the plugins declare, unless the manifest has
///   one for the same request and `from` (it overrides) or `exclude.routes` selects it. Two plugins
///   declaring the same route is a conflict that fails that route, naming both, unless a `prefer` entry
///   picks one.
/// - **Guards and deep links**: the manifest's, then those the plugins declare in requirement order, unless
///   the manifest has one of the same name (a guard) or pattern (a deep link), or `exclude.guards` or
///   `exclude.deepLinks` names it. Plugins declaring one differently is a conflict: none is taken, and the
///   requests a guard in conflict would guard are refused (``ConflictingGuard``), as a conflicting route fails.
/// - **Services**: the manifest's `services` in its order, then those the plugins ask to start
///   (``FlowKit/PluginDescription/startServices``), in requirement order, each after the services its
///   `after` names.
package struct PluginComposition: Sendable {
    /// A request and the module it must come from, the key of a route.
    package struct RouteKey: Sendable, Hashable, CustomStringConvertible {
        package var request: CoordinationRequestName
        package var module: Coordinated?

        package init(_ request: CoordinationRequestName, from module: Coordinated?) {
            self.request = request
            self.module = module
        }

        /// `"catalog.create"`, or `"auth.signIn" from "settings"`.
        package var description: String {
            quoted(request.rawValue) + (module.map { " from \(quoted($0.rawValue))" } ?? "")
        }
    }

    /// Who made a route.
    package enum Source: Sendable, Hashable, CustomStringConvertible {
        /// The manifest's `routes`.
        case manifest
        /// The plugin of that name declared it.
        case plugin(String)

        /// `manifest`, or the plugin's name.
        package var description: String {
            switch self {
            case .manifest: "manifest"
            case .plugin(let name): name
            }
        }

        /// The plugin that declared the guard or deep link `key` of `sources`, `nil` for the manifest's own, and
        /// the file a line about it names: that plugin's library, else `manifest`'s file.
        package static func declarer(
            of key: String, in sources: [String: Source], manifest: Manifest, plugins: [String: ProbedPlugin]
        ) -> (plugin: String?, file: String) {
            guard case .plugin(let name)? = sources[key] else { return (nil, manifest.path) }
            return (name, plugins[name]?.path ?? manifest.path)
        }
    }

    /// A plugin the manifest declares or discovery found, and what became of it.
    package struct Plugin: Sendable {
        package enum State: Sendable {
            /// Loaded (on demand) and routed.
            case active
            /// Not loaded: a requirement is unmet, or its probe failed (a plugin of `plugins`).
            case refused(PluginLoadError)
            /// Left out by the manifest's `exclude.plugins` entry at `by`.
            case excluded(by: String)
            /// Not used, because `by` (a `plugins` entry, or a library found first) is the same plugin.
            case overridden(by: String)
            /// Its library was removed from its directory while the host ran; its routes fail.
            case removed
        }

        package var name: String
        /// The library file.
        package var library: String
        /// The discovered directory it was found in; `nil` for a plugin of the manifest's `plugins`.
        package var directory: String?
        /// What its probe found; `nil` when the probe failed.
        package var probe: ProbedPlugin?
        package var state: State
        /// Why its library, still in place, could not be probed when read again while the host ran (written
        /// over with a truncated or broken file, say): it keeps its state and what its last probe found, so
        /// that its loaded generation keeps serving. `nil` when the last probe succeeded.
        package var probeFailure: PluginLoadError? = nil

        /// Whether it is loaded and routed.
        package var isActive: Bool {
            if case .active = state { return true }
            return false
        }
    }

    /// A declared route that is not routed as declared, and why.
    package struct SetAside: Sendable {
        package enum Reason: Sendable, CustomStringConvertible {
            /// The manifest routes the same request and `from` itself, at `by` (`routes[3]`).
            case overridden(by: String)
            /// An `exclude.routes` entry, at `by`, selects it.
            case excluded(by: String)
            /// Another plugin declares it too and the `prefer` entry at `by` picks `winner`.
            case notPreferred(by: String, winner: String)
            /// Other plugins declare it too and nothing picks one; the route fails.
            case conflict(with: [String])
            /// Its plugin is refused; the route fails with why, unless another plugin routes it.
            case refused(PluginLoadError)
            /// Its plugin's library was removed; the route fails, unless another plugin routes it.
            case removed

            package var description: String {
                switch self {
                case .overridden(let place): "overridden by the manifest's \(place)"
                case .excluded(let place): "excluded by \(place)"
                case .notPreferred(let place, let winner): "\(place) prefers plugin '\(winner)'"
                case .conflict(let others):
                    "conflicts with plugin\(others.count == 1 ? "" : "s") \(others.map { "'\($0)'" }.joined(separator: ", "))"
                case .refused: "its plugin is refused"
                case .removed: "its plugin was removed"
                }
            }
        }

        package var key: RouteKey
        package var plugin: String
        package var manager: String
        package var reason: Reason

        /// `plugin 'auth' declares a route for auth.signIn, set aside: excluded by exclude.routes[0]` (`... for
        /// auth.signIn from settings, ...` for a route from a module).
        package var note: String {
            "plugin '\(plugin)' declares a route for \(key.request)\(key.module.map { " from \($0)" } ?? ""), set aside: \(reason)"
        }
    }

    /// The manifest as the host runs it: the declared one with the discovered plugins (their libraries by
    /// path), the declared routes and the services to start.
    package internal(set) var manifest: Manifest
    /// The manifest as written.
    package let declared: Manifest
    /// Every plugin, the manifest's first (by name), then discovered ones in the order found.
    package internal(set) var plugins: [Plugin] = []
    /// Who made each route of ``manifest``.
    package internal(set) var sources: [RouteKey: Source] = [:]
    /// Declared routes not routed as declared.
    package internal(set) var setAside: [SetAside] = []
    /// Who made each guard of ``manifest``, by name.
    package internal(set) var guardSources: [String: Source] = [:]
    /// Who made each deep link of ``manifest``, by pattern.
    package internal(set) var deepLinkSources: [String: Source] = [:]
    /// Guards plugins declare differently, unsettled by the manifest, that refuse what they would guard.
    package internal(set) var conflictingGuards: [ConflictingGuard] = []
    /// Declared guards and deep links not taken as declared.
    package internal(set) var declarationsSetAside: [DeclarationSetAside] = []
    /// The deep links plugins declare whose pattern does not parse, which are not added: each with its
    /// plugin and why (``setAsideDeepLinkHint(for:)``).
    package internal(set) var malformedDeepLinks: [(plugin: String, pattern: String, error: String)] = []
    /// Routes that fail with an error when used: conflicts, and routes of refused or removed plugins.
    package internal(set) var failing: [RouteKey: PluginLoadError] = [:]
    /// Every problem, one line each: libraries that cannot be probed, conflicts, unmet requirements.
    package internal(set) var problems: [PluginLoadError] = []
    /// The active plugins, each after those it requires: the order to load them and start their services.
    package internal(set) var loadOrder: [String] = []
    /// The plugins each active plugin requires, to load first.
    package internal(set) var requirements: [String: [String]] = [:]
    /// Files in discovered directories that are not plugin libraries (no entry point).
    package internal(set) var skipped: [PluginLoadError] = []
    /// Libraries in discovered directories whose probe failed: they crashed, hung, were refused. Each is
    /// also a problem.
    package internal(set) var broken: [PluginLoadError] = []
    /// The directories discovery read.
    package internal(set) var directories: [String] = []
    /// The discovered directories that could not be read: not there, unreadable, refused as others can
    /// write them. Each is also a problem.
    package internal(set) var unreadDirectories: [PluginLoadError] = []
    /// The directories named in `discover` that hold no plugin library: warnings.
    package internal(set) var emptyDirectories: [EmptyDiscoveredDirectory] = []
    /// The names without wildcards in a `discover` entry's `libraries` that name no file there: warnings.
    package internal(set) var unmatchedLibraries: [UnmatchedLibraryName] = []

    /// Composes `manifest` with what `discovery` found in its directories.
    ///
    /// - Parameter previous: The composition this one follows while the host runs: a plugin it had
    ///   discovered that is gone now is kept as ``Plugin/State/removed``, its routes failing; one whose
    ///   library is still there but cannot be probed now keeps what the previous probe found
    ///   (``Plugin/probeFailure``).
    /// - Parameter awaiting: The libraries (absolute paths) of plugins in use in `previous` that vanished and
    ///   are waited for, since a linker or `cp` replacing one deletes it first: each plugin whose library is
    ///   one of them and not there is kept in use as it was, neither removed nor refused, while the manifest
    ///   keeps it (its `plugins` entry unchanged, for one listed there; its directory still read, and it not
    ///   excluded nor listed, for one discovered), so that its services keep running for the reload that follows its return.
    /// - Parameter refusing: Libraries (by path, as found) whose probe is taken as failed with the error given,
    ///   although it succeeded: a build refused for what it declares (``droppedRoutes(after:)``), which keeps
    ///   what the previous probe found, as a library that cannot be probed does.
    package init(
        manifest: Manifest, discovery: PluginDiscovery, previous: PluginComposition? = nil,
        awaiting: Set<String> = [], refusing: [String: PluginLoadError] = [:]
    ) {
        declared = manifest
        self.manifest = manifest
        skipped = discovery.skipped
        directories = discovery.directories
        emptyDirectories = discovery.empty
        unmatchedLibraries = discovery.unmatched
        problems = discovery.problems
        unreadDirectories = discovery.problems
        // A library gone between the directory's read and its probe is waited for as one seen to vanish.
        collectPlugins(
            discovery, previous: previous, awaiting: awaiting.union(discovery.vanished), refusing: refusing)
        let refused = resolveRequirements()
        let known = Set(plugins.filter(\.isActive).map(\.name))
        let routes = composeRoutes(known: known, refused: refused)
        for plugin in declaringPlugins {
            problems += (plugin.probe?.unprintableModuleProblems ?? []).map { problem in
                var problem = problem
                problem.file = plugin.library
                return problem
            }
        }
        let services = composeServices(known: known, refused: refused)
        var effective = manifest
        effective.plugins = manifest.plugins.filter { known.contains($0.key) }
        for plugin in plugins where plugin.isActive && plugin.directory != nil {
            effective.plugins[plugin.name] = Manifest.PluginEntry(name: plugin.name, library: plugin.library)
        }
        effective.routes = routes
        effective.services = services
        self.manifest = effective
        // Once the routes are in ``manifest``: a guard's redirect and a deep link's first step may be any
        // request they handle, a failing route's included (its plugin's problem says why it fails), as for the
        // manifest's own (``composedManifestErrors``).
        let routed = handledRequests
        self.manifest.guards = composeGuards(routed: routed)
        self.manifest.deepLinks = composeDeepLinks(routed: routed)
        var seen = Set<PluginLoadError>()
        problems = problems.filter { seen.insert($0).inserted }
    }

    /// The plugins whose declarations count, in the order they are taken: the active ones in load order, then
    /// those refused or removed (by name), whose declarations are set aside with why.
    var declaringPlugins: [Plugin] {
        let active = loadOrder.compactMap { name in plugins.first { $0.name == name && $0.isActive } }
        let unavailable = plugins.filter { plugin in
            switch plugin.state {
            case .refused, .removed: true
            default: false
            }
        }
        return active + unavailable.sorted { $0.name < $1.name }
    }

    /// The plugin called `name` that is in use, or would be but for a refusal or a removal.
    package func plugin(named name: String) -> Plugin? {
        plugins.first { plugin in
            guard plugin.name == name else { return false }
            if case .active = plugin.state { return true }
            if case .refused = plugin.state { return true }
            if case .removed = plugin.state { return true }
            return false
        }
    }

    /// The plugin other than `name` whose library is `library` now, in use or not: what a removed plugin's
    /// file holds when another plugin's library was written over it.
    package func plugin(at library: String, other name: String) -> String? {
        plugins.first { plugin in
            if case .removed = plugin.state { return false }
            return plugin.library == library && plugin.name != name
        }?.name
    }
}
