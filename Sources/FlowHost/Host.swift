import FlowComposition
import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// A running flow host: the manifest's routes in a ``BaseFlowCoordinator`` whose managers come from
/// plugins loaded on demand.
///
/// ```swift
/// let manifest = try Manifest.load(path: "manifests/demo.json")
/// let host = Host(manifest: manifest, searchPath: .standard(manifest: manifest))
/// host.start()
/// host.coordinator.requestCoordination("catalog.list", from: .app)
/// ```
///
/// Plugins and the manifest can be reloaded while it runs (``reloadPlugin(_:)``, ``reloadManifest()``,
/// ``watch()``); everything that happens is reported through ``onEvent`` and counted in ``stats``.
@MainActor
package final class Host {
    /// The manifest in force; replaced by a valid ``reloadManifest()``.
    package internal(set) var manifest: Manifest
    package let registry: PluginRegistry
    /// The root coordinator, routing the manifest's requests.
    package let coordinator: BaseFlowCoordinator
    /// What went wrong while setting up: plugins or services that could not be loaded. The host runs
    /// without them; their routes fail with the same errors.
    package private(set) var problems: [PluginLoadError] = []
    /// Called with everything that happens: flow events (unless ``onFlowEvent`` takes them), reloads,
    /// discoveries, exposures.
    ///
    /// The listener owns each event it is handed, so keeping one costs no copy: pass it on with `consume`
    /// (`{ event in log.append(consume event) }`).
    package var onEvent: (@MainActor (consuming HostEvent) -> Void)? {
        get { relay.onEvent }
        set { relay.onEvent = newValue }
    }
    /// Called with the coordinator's events as they are, instead of ``onEvent`` with each wrapped in a
    /// ``HostEvent/flow(_:)``: while it is set, ``onEvent`` hears only the host's own events.
    ///
    /// A `FlowEvent`'s layout is FlowKit's to change, so wrapping one in an enum of the host's, and taking it
    /// out again, goes through FlowKit's value witnesses: about 120 instructions an event, five events a
    /// request. A listener that keeps every event (the shell, ``HostEventLog``) takes them here.
    package var onFlowEvent: (@MainActor (consuming FlowEvent) -> Void)? {
        get { relay.onFlowEvent }
        set { relay.onFlowEvent = newValue }
    }
    /// Counters of what happened since the host was made.
    package internal(set) var stats: HostStats {
        get { relay.stats }
        set { relay.changeStats { $0 = newValue } }
    }
    /// Counts the coordinator's events and hands them to ``onEvent``.
    let relay = HostEventRelay()
    /// Assigns subjects to experiment variants.
    package let experiments: ExperimentAssigner
    /// The largest manifest file ``reloadManifest()`` reads, in bytes (`--max-manifest-size`).
    package var maxManifestSize = Manifest.defaultMaxSize
    package var watcher: FileWatcher?
    /// What ``watch()`` gave the watcher, as it reports it: the manifest's path, and the plugins whose library
    /// each watched path is. A change is told from these, rather than by locating every library again.
    var watched: (manifest: String, libraries: [String: [String]]) = ("", [:])
    /// The libraries of plugins in use that vanished under ``watch()``, waited for before they are said
    /// removed, and the changes to discovery held meanwhile, in order (``discoveryChanged(_:landedAt:)``).
    var vanishedLibraries: (waiting: Set<String>, held: [(path: String, landedAt: ContinuousClock.Instant)]) = ([], [])
    /// For each plugin whose watched library changed, how many changes were seen: the tries of a file that looks
    /// incomplete (``reloadWhenComplete(_:landedAt:change:awaitingFile:)``) stop once a later change takes over the wait.
    var watchedChanges: [String: Int] = [:]
    /// How many reloads are swapping a plugin's generation in now (``isSwappingGenerations``).
    var swapsUnderWay = 0
    /// Whether a reload is swapping a plugin's generation in: its new image is open, and its services,
    /// background managers and child flows are being moved to it, which reports flow events (a service
    /// stopped, then started). A host that restarts itself at the cap of generations waits until it is not,
    /// else its snapshot would be saved, and the host exit, with a service stopped and not yet replaced, and
    /// the reload's own event (which a `wait reload` in the new host takes for done) never said. So it waits, too,
    /// while an adoption that reloaded a plugin is being said (``adoptionsBeingSaid``).
    package var isSwappingGenerations: Bool { swapsUnderWay > 0 || adoptionsBeingSaid > 0 }
    /// How many adoptions of a composition (``adopt(_:after:startingEveryService:)``) that reloaded a plugin have
    /// lines still to say before their last (``sayAdopted(_:)``): the reload is made as the composition is
    /// adopted, and said after the manifest's line, before others.
    var adoptionsBeingSaid = 0
    /// The running services and the manifest entries they came from, for swapping them on a reload.
    var runningServices: [(ref: Manifest.ServiceRef, service: any CoordinatorServiceProtocol)] = []
    /// The manifest names of the async services stopping in the background because their entry or plugin went,
    /// oldest first, by type name, until each says it stopped: it says so after it left ``runningServices``. One
    /// whose start threw or timed out (`started` false) says it stopped only if its stop times out.
    var stoppingServiceNames: [String: [(name: String, started: Bool)]] = [:]
    /// The running async services whose start threw or timed out: FlowKit asks them to stop all the same, but
    /// says no `serviceStopped`, so neither does the host.
    var servicesNotStarted: Set<Manifest.ServiceRef> = []
    /// The manager types of each plugin's previous generations, by plugin.
    var retiredManagerTypes: [String: Set<ObjectIdentifier>] = [:]
    /// For a manifest that discovers plugins, what discovery found and where each route comes from; then
    /// ``manifest`` is ``PluginComposition/manifest``, and ``PluginComposition/declared`` the file's.
    package internal(set) var composition: PluginComposition?
    /// The listed plugins said removed because their library was deleted, with the refusal that said it and
    /// the file they were loaded from: while discovery refuses one with that same error, it is removed, not
    /// refused (``outOfUse(_:)``, `stats`).
    var deletedLibraries: [String: (error: PluginLoadError, library: String)] = [:]
    /// The discovered plugins said removed because another plugin's library was written over theirs, with the
    /// file as discovery read it: while it is unchanged, it holds the other plugin (``outOfUse(_:)``); written
    /// again, it may be theirs, back, which discovery is still to read.
    var overwrittenLibraries: [String: FileIdentity] = [:]
    /// The last manifest edit read, composed, when it was rejected only because no composed route handles a
    /// request it names (``recompose(_:)``): it is read again when discovery changes (``retryHeldManifestEdit()``),
    /// since the plugin that routes the request may land after the edit, as a build saved with it does. Its
    /// directories are watched meanwhile (``watchedDirectories``), those it adds too.
    var heldManifestEdit: PluginComposition?
    /// The errors the last read of the manifest file was refused with (a held edit's too), until a read is
    /// taken: the file then says something other than the manifest in force, so a watched read of it back is
    /// said, and the same refusal again is not (``reloadManifest(unlessUnchanged:)``).
    var refusedManifestEdit: ManifestErrors?
    /// Probes the libraries of discovered directories (see ``Host+Discovery``).
    var discoveryProber: PluginProber?
    /// The plugins each manager of a child flow was seen handling a request for, by the name FlowKit reports
    /// it under, which has no plugin (``noteChildManager(_:of:)``, ``userFacingManagerName(_:)``).
    var childManagerPlugins: [String: Set<String>] = [:]
    /// Where the host records which plugin it is calling into, for a supervisor to read after a crash
    /// (`flowhost run --supervise`); `nil`, the default, records nothing.
    ///
    /// Not checked for exclusivity at run time (read on every request): a reference only ever read or
    /// assigned whole, on the main actor, never passed `inout`, so no two accesses to it can overlap; its
    /// observer runs after the assignment's access ends.
    @exclusivity(unchecked) package var breadcrumb: CrashBreadcrumb? {
        didSet {
            relay.tracksBreadcrumbs = breadcrumb != nil
            coordinator.mapping = mapping(for: manifest)
        }
    }
    /// The crumb of the call that presented each module (its manager's, naming its plugin), while there is a
    /// ``breadcrumb``.
    ///
    /// Not checked for exclusivity at run time: read, or changed by one subscript assignment, on the main
    /// actor; the only code that runs during a change is `Coordinated`'s hashing and equality, which cannot
    /// reach the host, so no two accesses to it can overlap.
    @exclusivity(unchecked) var modulePresenters: [Coordinated: CrashBreadcrumb.Crumb] = [:]

    /// Builds the host. Loads the plugins that provide services now, and with `eager` every plugin.
    ///
    /// - Parameters:
    ///   - versioned: Ignored: every plugin is loaded from a private copy now, so that its file can be
    ///     rebuilt (and reloaded) while the host runs. Kept so that existing callers still build.
    ///   - allowInsecurePlugins: Load libraries whose file or directories others can write.
    ///   - prober: Probe each plugin in a child process before loading it (``PluginRegistry/prober``).
    ///   - discoveryProber: Probes the libraries of the manifest's `discover` directories, which are never
    ///     loaded here to see what they declare; by default `prober`, else ``PluginProber/standard(timeout:useCache:)``.
    ///   - registry: The plugins of another host of the same manifest, to share instead of loading them
    ///     again (`flowhost run --subjects` runs one host per subject); `searchPath`, `allowInsecurePlugins`,
    ///     `prober` and `quarantine` are then the shared registry's.
    ///   - quarantine: Refuses what it lists even without a `prober` (``PluginRegistry/quarantine``): a
    ///     supervised host's, in force before the plugins of the services (or, with `eager`, all of them)
    ///     load, so that one that crashed a host as it loaded is not loaded again.
    package init(
        manifest declared: Manifest, searchPath: PluginSearchPath, eager: Bool = false, versioned: Bool = false,
        allowInsecurePlugins: Bool = false, prober: PluginProber? = nil, discoveryProber: PluginProber? = nil,
        registry shared: PluginRegistry? = nil, quarantine: PluginQuarantine? = nil
    ) {
        // What discovery and an eager start probe is written to the registry cache once, at the end.
        let batch = [prober, discoveryProber].compactMap { $0 }
        for prober in batch { prober.beginBatch() }
        defer { for prober in batch { prober.endBatch() } }
        let composition = PluginComposition.discovered(
            by: declared, searchPath: searchPath, prober: discoveryProber ?? prober,
            allowInsecurePlugins: allowInsecurePlugins)
        let manifest = composition?.manifest ?? declared
        self.manifest = manifest
        self.composition = composition
        self.discoveryProber = discoveryProber ?? prober
        let registry =
            shared
            ?? PluginRegistry(manifest: manifest, searchPath: searchPath, allowInsecurePlugins: allowInsecurePlugins)
        if shared == nil {
            registry.prober = prober
            registry.quarantine = quarantine
            registry.follow(composition)
        }
        self.registry = registry
        self.experiments = ExperimentAssigner(manifest.experiments)
        var problems = composition?.problems ?? []
        var services: [(ref: Manifest.ServiceRef, service: any CoordinatorServiceProtocol)] = []
        for service in manifest.services {
            do {
                services.append((service, try registry.service(service.service, in: service.plugin).make()))
            } catch {
                problems.append(error)
            }
        }
        self.runningServices = services
        problems +=
            eager
            ? Host.check(manifest: manifest, registry: registry)
            : Host.unexportedByLoadedPlugins(in: manifest, registry: registry)
        self.coordinator = BaseFlowCoordinator(name: manifest.name ?? "host", services: services.map(\.service))
        if let timeout = manifest.serviceTimeout { coordinator.serviceTimeout = timeout }
        self.problems = PluginLoadError.unique(problems)
        coordinator.mapping = mapping(for: manifest)
        coordinator.guards = composition?.guards ?? manifest.guards
        // Any moment may be saved (`save FILE`), so the host always records what restores its screens.
        coordinator.isRestorable = true
        relay.host = self
        relay.listen(to: coordinator)
        experiments.onExposure = { [weak self] exposure in
            guard let self else { return }
            self.relay.changeStats { stats in
                stats.exposures[exposure.experiment, default: [:]][exposure.variant, default: 0] += 1
            }
            self.onEvent?(.exposure(exposure))
        }
        experiments.onNoSubject = { [weak self] experiment in
            self?.relay.changeStats { $0.withoutSubject[experiment, default: 0] += 1 }
        }
    }

    /// Writes to the registry cache the probes this host's lazy loads have kept pending, if its last write is
    /// a second old (``ProbeCache/writeIfDue()``); the shell calls it at the end of each input.
    package func writeDueProbes() {
        registry.prober?.cache?.writeIfDue()
        if discoveryProber !== registry.prober { discoveryProber?.cache?.writeIfDue() }
    }

    /// Starts the services, then sends the manifest's `start` requests in order, from the `app` module.
    ///
    /// Services that await start in the background; ``startAndWait()`` waits for them first.
    ///
    /// - Returns: Each start request with its outcome.
    @discardableResult
    package func start() -> [(request: CoordinationRequest, outcome: CoordinationOutcome)] {
        coordinator.start()
        return manifest.start.map { ($0, coordinator.requestCoordination($0, from: .app)) }
    }

    /// Starts the services in order, awaiting each that awaits for at most the manifest's
    /// `serviceTimeout`, then sends the manifest's `start` requests.
    ///
    /// A service that fails or takes too long is reported (``HostEvent/flow(_:)`` with
    /// ``FlowEvent/serviceProblem(_:)``, by its manifest name) and the host goes on without it.
    ///
    /// - Returns: Each start request with its outcome.
    @discardableResult
    package func startAndWait() async -> [(request: CoordinationRequest, outcome: CoordinationOutcome)] {
        await coordinator.startAndWait()
        return manifest.start.map { ($0, coordinator.requestCoordination($0, from: .app)) }
    }

    /// Stops watching, then stops the coordinator and its services.
    ///
    /// Services that await stop in the background; ``stopAndWait()`` waits for them.
    package func stop() {
        watcher?.stop()
        watcher = nil
        vanishedLibraries = ([], [])  // what was waited for is no longer read
        coordinator.stop()
    }

    /// Stops watching, then stops the coordinator and its services in reverse order, awaiting each that
    /// awaits for at most the manifest's `serviceTimeout`. Always returns: a service that does not stop
    /// in time is reported and left behind.
    ///
    /// - Returns: The services that did not stop in time, by their manifest names.
    @discardableResult
    package func stopAndWait() async -> [ServiceProblem] {
        watcher?.stop()
        watcher = nil
        vanishedLibraries = ([], [])
        let problems = await coordinator.stopAndWait()
        return problems.map(namingService)
    }

    /// Loads every plugin and checks that each route's manager, each experiment variant's manager and each
    /// service exists; one that does not is reported at its place in the manifest (`routes[1].manager`).
    ///
    /// - Returns: Every problem found, not just the first.
    package static func check(manifest: Manifest, registry: PluginRegistry) -> [PluginLoadError] {
        var problems = registry.loadAll()
        for reference in manifest.exportReferences() {
            do throws(PluginLoadError) {
                if reference.isService {
                    _ = try registry.service(reference.name, in: reference.plugin)
                } else {
                    _ = try registry.manager(reference.name, in: reference.plugin)
                }
            } catch {
                var error = error
                // A name the plugin does not export is the manifest's mistake: said at its place there.
                if [.unknownManager, .unknownService].contains(error.kind), let place = reference.place {
                    error.file = manifest.path
                    error.place = place
                }
                problems.append(error)
            }
        }
        return PluginLoadError.unique(problems)
    }

    /// The library serving manager `name` (as reported, `plugin.Manager`), for messages.
    package func library(ofManager name: String) -> String? {
        plugin(ofManager: name).flatMap(registry.library(of:))
    }

    /// The plugin of manager `name` (as reported, `plugin.Manager`): the name before its first dot, when the
    /// registry knows a plugin of that name; `nil` for a manager no plugin's route names so (a child flow's).
    package func plugin(ofManager name: String) -> String? {
        // Read on every flow event (the shell's ``ModuleMakers``): the dot found among the bytes, and the plugin
        // looked up without copying its status out.
        guard let dot = name.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let plugin = String(name[..<dot])
        return registry.declares(plugin) ? plugin : nil
    }

    /// The coordinator's routing table for `manifest`.
    func mapping(for manifest: Manifest) -> RequestCoordinatorMappingDictionary {
        var mapping = RequestCoordinatorMappingDictionary()
        mapping.reserveCapacity(manifest.routes.count)
        for route in manifest.routes {
            let key = route.module.map { RequestRoute(route.request, from: $0) } ?? RequestRoute(route.request)
            switch route.target {
            case .manager(let plugin, let manager):
                let binding = ManagerBinding(plugin: plugin, manager: manager, registry: registry)
                mapping[key] = tracking(
                    ManagerFactory(name: binding.reportedName, cachedIn: registry.resolutions) {
                        try binding.resolve()
                    }, for: route.request)
            case .experiment(let name):
                let factory = experiments.factory(for: name, registry: registry) { [weak coordinator] in
                    coordinator?.context ?? .empty
                }
                mapping[key] = tracking(factory, for: route.request)
            }
        }
        addFailingRoutes(to: &mapping)
        return mapping
    }
}
