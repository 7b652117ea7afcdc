import FlowComposition
import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// Discovery in a running host: the manifest composed with what its discovered plugins declare, routes that
/// fail cleanly where nothing can serve them, and live drop-in under ``watch()``.
extension Host {
    /// The directories ``watch()`` watches whole: those discovery read, and those the manifest names that
    /// are missing now (deleted, or not made yet), so that they are read once they are there; the same of a
    /// manifest edit held (``heldManifestEdit``), so that the plugin it waits for is seen landing there.
    var watchedDirectories: [String] {
        var directories: [String] = []
        for composition in [composition, heldManifestEdit].compactMap(\.self) {
            let named = composition.declared.discover.compactMap { entry -> String? in
                if case .directory(let directory) = entry.place { directory } else { nil }
            }
            for directory in composition.directories + named where !directories.contains(directory) {
                directories.append(directory)
            }
        }
        return directories
    }

    /// Routes that fail with their error: declared by two plugins that nothing picks between, or by a
    /// plugin that is refused or was removed.
    func addFailingRoutes(to mapping: inout RequestCoordinatorMappingDictionary) {
        guard let composition else { return }
        for (key, error) in composition.failing {
            let route = key.module.map { RequestRoute(key.request, from: $0) } ?? RequestRoute(key.request)
            mapping[route] = ManagerFactory(name: key.request.rawValue) { throw error }
        }
    }

    /// Reads the discovered directories again and switches to what they hold now: a new library's routes go
    /// live and its services start, a removed one's routes fail (its image stays loaded) and its services
    /// stop, a replaced one is reloaded. A library written over with one that cannot be probed is a refused
    /// reload: the loaded generation keeps serving. So is the library of a plugin the manifest's `plugins`
    /// lists, while its entry there is unchanged (see ``PluginComposition``). So is a library rebuilt without the
    /// route of a request the manifest sends (a start request, a deep link's first step, a guard's redirect)
    /// that its build before routed, which a manifest edit may not leave unrouted either
    /// (``PluginComposition/droppedRoutes(after:)``): its plugin keeps that build's declarations. Reports each change
    /// (``HostEvent/pluginDiscovered(plugin:file:routes:services:setAside:)``,
    /// ``HostEvent/pluginRemoved(plugin:file:routes:services:)``, ``HostEvent/reloadRefused(plugin:_:)``,
    /// ``HostEvent/discoveryProblem(_:stoppedServices:)``). A manifest edit held for want of the routes it
    /// names is then read again (``retryHeldManifestEdit()``), its events reported but not returned. For a
    /// manifest that lists its plugins, there is nothing to read but such an edit (whose directories are watched):
    /// `changed`, a listed plugin's library, is reloaded first.
    ///
    /// - Parameter changed: The file that changed, when a watcher saw one: reloaded if it is a loaded
    ///   plugin's library.
    /// - Returns: The events, in the order reported.
    @discardableResult
    package func rediscover(changed: String? = nil, landedAt: ContinuousClock.Instant? = nil) -> [HostEvent] {
        guard let previous = composition else {
            // A manifest that lists its plugins, with an edit to discover held: a file of the edit's directories
            // changed, which may be a listed plugin's library.
            if let changed { reloadLibrary(at: changed, landedAt: landedAt ?? .now) }
            retryHeldManifestEdit()
            return []
        }
        // Before the probes: a library still so when its probe's refusal is said holds the bytes probed.
        let probing = changed.flatMap { FileIdentity(path: $0) }
        guard
            let next = PluginComposition.discovered(
                by: previous.declared, searchPath: registry.searchPath, prober: discoveryProber,
                allowInsecurePlugins: registry.allowsInsecurePlugins, previous: previous,
                awaiting: vanishedLibraries.waiting)
        else { return [] }
        var events = adopt(next, after: previous)
        if watcher != nil { try? watch() }  // new libraries and directories to watch
        // A plugin at another library was reloaded from it as the composition was adopted: not again here.
        let reloaded = Set(events.compactMap(\.reloadedPlugin))
        var returned: [String] = []
        var changedInPlace: [String] = []
        func isChanged(_ name: String) -> Bool {
            changed != nil && registry.sourcePath(of: name).map(Manifest.absolutePath) == changed
        }
        for name in registry.pluginNames where !reloaded.contains(name) {
            guard let plugin = next.plugin(named: name), plugin.isActive else { continue }
            if plugin.directory == nil {
                // Listed in the manifest's `plugins`: back after it was refused, its slot may still hold the
                // image loaded before, so load what is there now, as for a discovered plugin back (one never
                // loaded loads from what is there now when first used). Else its library changed is reloaded
                // (or its reload refused), whether it was loaded or not, as the library of a manifest that
                // does not discover is.
                if previous.plugin(named: name)?.isActive == false {
                    if case .loaded? = registry.status(of: name) { returned.append(name) }
                } else if isChanged(name) {
                    changedInPlace.append(name)
                }
                continue
            }
            switch (registry.status(of: name), previous.plugin(named: name)?.state) {
            case (.loaded?, .removed?):
                returned.append(name)
            case (.loaded?, .active?):
                if isChanged(name) { changedInPlace.append(name) }
            case (.failed?, .active?) where plugin.probeFailure == nil:
                // A load that failed is tried again once its file is fixed, as a watched library's is.
                if isChanged(name) { changedInPlace.append(name) }
            case (.notLoaded?, .active?) where plugin.probeFailure?.isIncompleteFile != true:
                // The library of one not loaded yet is checked, as a listed one's is, and loads on first use; one
                // still being written stays a discovery problem, and is checked once it is whole.
                if isChanged(name) { changedInPlace.append(name) }
            default: continue
            }
        }
        // A library written over with one that cannot be probed is said once, by its refused reload.
        let refused = Set(changedInPlace.compactMap { next.plugin(named: $0)?.probeFailure })
        events.removeAll { event in
            if case .discoveryProblem(let error, _) = event { refused.contains(error) } else { false }
        }
        for event in events { onEvent?(event) }
        for name in returned {
            // Back after a removal: its slot still holds the image loaded before, so load what is there now. The
            // same library back is said by its discovery's line alone: "unchanged" after "go live" says nothing.
            let event = reloadPlugin(name, sayingUnchanged: false)
            if case .pluginUnchanged = event { continue }
            events.append(event)
        }
        for name in changedInPlace {
            if let failure = next.plugin(named: name)?.probeFailure, !failure.isIncompleteFile {
                // Its probe refused it (it crashed, hung, is quarantined, ...): not opened in this process. One
                // not loaded yet says a build refused for its bytes once, however many file events it is.
                if case .notLoaded? = registry.status(of: name) {
                    guard registry.takeUnloadedProbeRefusal(of: name, failure, probing: probing) else { continue }
                    let event = HostEvent.unloadedLibraryChanged(plugin: name, file: failure.file, refusal: failure)
                    onEvent?(event)
                    events.append(event)
                    continue
                }
                // A probe refuses with none of these kinds: the composition refused the build it probed.
                let forDeclarations = [.droppedRoute, .unknownManager, .unknownService].contains(failure.kind)
                let event = watchedRefusal(of: name, failure, forDeclarations: forDeclarations)
                onEvent?(event)
                events.append(event)
            } else {
                // A library that was already live changed in place (or is still being written, which the
                // reload waits for). One just discovered was loaded from what is there now, and reloading it
                // would only report that it is unchanged.
                Task { self.reloadWhenComplete(name, landedAt: landedAt ?? .now) }
            }
        }
        retryHeldManifestEdit()
        return events
    }

    /// Reads again the manifest edit rejected because no composed route handled a request it names
    /// (``heldManifestEdit``), now that discovery changed: taken, and said as a manifest reload, when the
    /// plugins found now route what it names; still rejected, said nothing more, since its rejection was.
    func retryHeldManifestEdit() {
        guard heldManifestEdit != nil,
            let declared = try? Manifest.load(path: manifest.path, maxSize: maxManifestSize),
            unexported(in: declared).isEmpty,
            case .manifestReloaded? = try? recompose(declared)
        else { return }
        refusedManifestEdit = nil
        if watcher?.isStopped == false { try? watch() }
    }

    /// Takes a reloaded manifest that discovers plugins: composes it, adopts it and reports it; `nil` for
    /// one that discovers nothing.
    ///
    /// - Throws: The errors the parser leaves to discovery (``PluginComposition/composedManifestErrors``): its
    ///   start requests, deep links' first steps and guard redirects that no composed route handles. `validate`
    ///   and `run`'s start refuse such a manifest, so a reload does too, as it does a listing manifest the parser
    ///   refuses for them, and the composition in force stays.
    func recompose(_ declared: Manifest) throws(ManifestErrors) -> HostEvent? {
        guard
            let next = PluginComposition.discovered(
                by: declared, searchPath: registry.searchPath, prober: discoveryProber,
                allowInsecurePlugins: registry.allowsInsecurePlugins, previous: composition,
                awaiting: vanishedLibraries.waiting)
        else { return nil }
        let unrouted = next.composedManifestErrors
        heldManifestEdit = unrouted.isEmpty ? nil : next
        if !unrouted.isEmpty {
            throw ManifestErrors(
                Array(unrouted.prefix(ManifestErrors.maxListed)),
                omitted: max(0, unrouted.count - ManifestErrors.maxListed))
        }
        let previous = composition ?? listingComposition()
        let routesBefore = manifest.routes
        experiments.update(next.manifest.experiments)
        let events = adopt(next, after: previous, startingEveryService: composition == nil)
        // The routes in force that changed, but those other lines speak of: a route whose plugin on each side
        // (or nothing) was discovered, removed or excluded (its line names its routes), or was refused after it
        // served (its problem says why its routes fail).
        let refused = next.plugins.filter { plugin in
            guard case .refused = plugin.state else { return false }
            return previous.plugin(named: plugin.name)?.isActive == true
        }
        let plugins = Set(events.compactMap(\.pluginComingOrGoing) + refused.map(\.name))
        func saidByAPlugin(_ source: PluginComposition.Source?) -> Bool {
            guard case .plugin(let name)? = source else { return source == nil }
            return plugins.contains(name)
        }
        let changes = RouteChanges(from: routesBefore, to: next.manifest.routes) { key in
            !(saidByAPlugin(previous.sources[key]) && saidByAPlugin(next.sources[key]))
        }
        let event = HostEvent.manifestReloaded(
            file: next.manifest.path, routes: next.manifest.routes.count, changes: changes)
        onEvent?(event)
        for event in events { onEvent?(event) }
        return event
    }

    /// The manifest in force, which lists its plugins, as a composition (``PluginComposition/init(listing:libraries:failures:)``):
    /// each plugin at the file its image was loaded from, else where the search path finds it now, and refused
    /// when it failed to load.
    private func listingComposition() -> PluginComposition {
        var libraries: [String: String] = [:]
        var failures: [String: PluginLoadError] = [:]
        for name in manifest.plugins.keys {
            switch registry.status(of: name) {
            case .loaded(let plugin)?: libraries[name] = plugin.path
            case .failed(let error)?: failures[name] = error
            default: break
            }
            libraries[name] = (libraries[name] ?? registry.sourcePath(of: name)).map(Manifest.absolutePath)
        }
        return PluginComposition(listing: manifest, libraries: libraries, failures: failures)
    }

    /// Makes `next` the composition in force, after `previous`: routes, guards, services, registry; returns the
    /// events that say what changed.
    ///
    /// - Parameter startingEveryService: Whether every service `next` starts that is not running starts, in
    ///   its order (those of the plugins `previous` had too): after a manifest that listed its plugins, whose
    ///   services were only those it listed. Else only those of the plugins that come in start.
    func adopt(_ next: PluginComposition, after previous: PluginComposition, startingEveryService: Bool = false)
        -> [HostEvent]
    {
        composition = next
        manifest = next.manifest
        let moved = registry.update(manifest: next.manifest)
        registry.follow(next)
        coordinator.mapping = mapping(for: next.manifest)
        // With the plugins that come and go, so do the guards they declare (deep links are read from the
        // manifest at each use).
        coordinator.guards = next.guards
        // A plugin said removed for its deleted library stays so only while discovery refuses it with that
        // same error and its entry is unchanged: not once it is back, nor once its entry is edited (to a file
        // that is not there either, which is its problem) or dropped (removed from the manifest).
        deletedLibraries = deletedLibraries.filter { name, deleted in
            guard case .refused(let error)? = next.plugin(named: name)?.state, error == deleted.error,
                let entry = next.declared.plugins[name]
            else { return false }
            return previous.declared.plugins[name] == entry
        }
        overwrittenLibraries = overwrittenLibraries.filter { name, _ in
            if case .removed? = next.plugin(named: name)?.state { true } else { false }
        }

        var events: [HostEvent] = []
        var saidAsRemoved = Set<PluginLoadError>()
        var stoppedWith: [(error: PluginLoadError, services: [String])] = []  // in the plugins' order
        let stopped = stopServices(notIn: next.manifest)
        // Back in use after a refusal (at the start or since; a listed plugin that failed to load, now discovered):
        // a load that failed was of a file since replaced, so the next use, its services' first, loads what is
        // there now.
        for plugin in next.plugins where plugin.isActive && previous.plugin(named: plugin.name)?.isActive == false {
            registry.forgetFailedLoad(of: plugin.name)
        }
        // A loaded plugin now at another library (its file renamed, its entry edited) is reloaded from there, as
        // a rebuild is, the services it keeps handed over; for one in use before, what the reload says takes the
        // place of its discovered line. The same bytes elsewhere go on from the image loaded, and are said
        // discovered there.
        var reloads: [String: HostEvent] = [:]
        for name in moved {
            let event = reloadUnsaid(name)
            if case .pluginUnchanged = event { continue }
            reloads[name] = event
        }
        let startedInOrder = startingEveryService ? startServices(in: next) : nil
        // What `plugin`'s coming in starts: its services, unless all were started in order.
        func start(_ plugin: String) -> [String] {
            startedInOrder.map { $0[plugin] ?? [] } ?? startServices(of: plugin, in: next.manifest)
        }
        for plugin in next.plugins {
            let before = previous.plugin(named: plugin.name)
            let stoppedServices = stopped.filter { $0.hasPrefix(plugin.name + ".") }
            if plugin.isActive, before?.isActive == true, let reload = reloads.removeValue(forKey: plugin.name) {
                events.append(reload)
                // Services the edit adds to it start as a discovered plugin's do, and are said so.
                let started = start(plugin.name)
                if !started.isEmpty {
                    events.append(
                        .pluginDiscovered(
                            plugin: plugin.name, file: plugin.library, routes: routes(of: plugin.name, in: next),
                            services: started, setAside: routes(setAsideFrom: plugin, in: next)))
                }
                continue
            }
            func removal(from file: String) -> HostEvent {
                // The file may be there still, written over by another plugin's library.
                let nowHolds = next.plugin(at: file, other: plugin.name)
                if nowHolds != nil { overwrittenLibraries[plugin.name] = FileIdentity(path: file) }
                return .pluginRemoved(
                    plugin: plugin.name, file: file, routes: routes(declaredBy: plugin, in: next),
                    services: stoppedServices, nowHolds: nowHolds)
            }
            switch plugin.state {
            case .active
            where plugin.directory != nil
                && (before?.isActive != true
                    || before.map { Manifest.absolutePath($0.library) } != Manifest.absolutePath(plugin.library)):
                let started = start(plugin.name)
                events.append(
                    .pluginDiscovered(
                        plugin: plugin.name, file: plugin.library, routes: routes(of: plugin.name, in: next),
                        services: started, setAside: routes(setAsideFrom: plugin, in: next)))
            case .active where plugin.directory == nil && before?.isActive == false:
                // Listed in the manifest's `plugins`, back after it was refused (its library fixed, at the
                // start or since): as a discovered plugin back, its routes go live and its services start.
                let started = start(plugin.name)
                events.append(
                    .pluginDiscovered(
                        plugin: plugin.name, file: plugin.library, routes: routes(of: plugin.name, in: next),
                        services: started, setAside: routes(setAsideFrom: plugin, in: next)))
            case .removed where before?.isActive == true:
                events.append(removal(from: plugin.library))
            case .refused(let error):
                guard let before, let deleted = deletedLibrary(of: before, refused: error, after: previous, in: next)
                else {
                    // Refused for another reason after it served (a `sha256` pin edit, an unmet requirement):
                    // its problem names the services that stopped with it.
                    if before?.isActive == true {
                        stoppedWith.append((error, stoppedServices))
                    }
                    break
                }
                // Listed in the manifest's `plugins`, its library deleted: said as a discovered plugin's
                // removal is, from the file it was loaded from, naming the services that stopped with it. The
                // problem would say it again, but for a file name looked for on the search path: it says
                // which directories it is not in.
                if deleted.contains("/") { saidAsRemoved.insert(error) }
                deletedLibraries[plugin.name] = (error, before.library)
                events.append(removal(from: before.library))
            case .excluded(let place) where before?.isActive == true:
                events.append(
                    .pluginExcluded(
                        plugin: plugin.name, file: plugin.library, by: place,
                        routes: routes(of: plugin.name, in: previous),
                        services: stoppedServices))
            default: break
            }
            // Back from elsewhere (removed or refused before): its discovered line says its routes go live, and
            // the reload what it loaded.
            if plugin.isActive, let reload = reloads.removeValue(forKey: plugin.name) { events.append(reload) }
        }
        // Each problem once: a library refused by the quarantine for a crash reported before is that crash,
        // said again in other words.
        let known = Set(previous.problems)
        let reported = Set(previous.problems.map(\.file))
        let problems = next.problems.filter { problem in
            !known.contains(problem) && !saidAsRemoved.contains(problem)
                && !(problem.kind == .quarantined && reported.contains(problem.file))
        }
        events += problems.map { problem in
            .discoveryProblem(problem, stoppedServices: stoppedWith.filter { $0.error == problem }.flatMap(\.services))
        }
        // A refusal not said as a problem here (said before, in other words) still says what it stopped.
        for (error, services) in stoppedWith where !services.isEmpty && !problems.contains(error) {
            events.append(.discoveryProblem(error, stoppedServices: services))
        }
        return events
    }

    /// Whether `before`, a plugin in use in `previous` that the manifest's `plugins` lists, is refused with
    /// `error` in `next` because its library was deleted: its entry is unchanged and `error` says the file
    /// it was loaded from (or, for a file name, that the search path has it nowhere) is not found. Returns
    /// the library as the entry writes it; `nil` for any other refusal, such as an entry edited to a path
    /// that is not there, whose problem is said as it is.
    private func deletedLibrary(
        of before: PluginComposition.Plugin, refused error: PluginLoadError, after previous: PluginComposition,
        in next: PluginComposition
    ) -> String? {
        guard before.isActive, before.directory == nil, error.kind == .notFound,
            let entry = next.declared.plugins[before.name], previous.declared.plugins[before.name] == entry,
            error.file == before.library || (!entry.library.contains("/") && error.file == entry.library)
        else { return nil }
        return entry.library
    }

    /// The routes `plugin` serves in `composition`, as the shell writes them.
    private func routes(of plugin: String, in composition: PluginComposition) -> [String] {
        composition.manifest.routes.filter { $0.plugin == plugin }.map {
            PluginComposition.RouteKey($0.request, from: $0.module).shellName
        }
    }

    /// The routes `plugin` declares that it does not serve in `composition`, each with why, as the shell
    /// writes them: `catalog.create (conflicts with plugin 'catalog')`.
    private func routes(setAsideFrom plugin: PluginComposition.Plugin, in composition: PluginComposition) -> [String] {
        // Each route once, and none it serves (the manifest may route one it declares to it).
        var seen = Set(
            composition.manifest.routes.filter { $0.plugin == plugin.name }.map {
                PluginComposition.RouteKey($0.request, from: $0.module)
            })
        return (plugin.probe?.routes ?? []).compactMap { route in
            let key = PluginComposition.RouteKey(route.request, from: route.from)
            guard seen.insert(key).inserted else { return nil }
            if let aside = composition.setAside.first(where: { $0.key == key && $0.plugin == plugin.name }) {
                return "\(key.shellName) (\(aside.reason))"
            }
            // Not taken at all: a route to a manager the plugin does not export, reported as a problem.
            guard plugin.probe?.managers.contains(where: { $0.name == route.manager }) == false else { return nil }
            return "\(key.shellName) (it exports no manager '\(route.manager)')"
        }
    }

    /// The routes `plugin` declared that now fail because it is gone.
    private func routes(declaredBy plugin: PluginComposition.Plugin, in composition: PluginComposition) -> [String] {
        (plugin.probe?.routes ?? []).map { PluginComposition.RouteKey($0.request, from: $0.from) }
            .filter { composition.failing[$0] != nil }.map(\.shellName)
    }

    /// Starts the services `manifest` has for `plugin` that are not running; returns their names.
    private func startServices(of plugin: String, in manifest: Manifest) -> [String] {
        manifest.services.filter { $0.plugin == plugin }.compactMap(startService)
    }

    /// Starts every service `composition` starts that is not running, of its active plugins, in its order;
    /// returns their names by plugin.
    private func startServices(in composition: PluginComposition) -> [String: [String]] {
        var started: [String: [String]] = [:]
        for ref in composition.manifest.services where composition.plugin(named: ref.plugin)?.isActive == true {
            if let name = startService(ref) { started[ref.plugin, default: []].append(name) }
        }
        return started
    }

    /// Starts the service `ref` names, unless it runs; returns its name once started, `nil` when it was running
    /// or could not be made (a discovery problem, said at once).
    private func startService(_ ref: Manifest.ServiceRef) -> String? {
        guard !runningServices.contains(where: { $0.ref == ref }) else { return nil }
        do {
            let service = try registry.service(ref.service, in: ref.plugin).make()
            runningServices.append((ref, service))
            coordinator.addService(service)
            return ref.reportedName
        } catch {
            onEvent?(.discoveryProblem(error))
            return nil
        }
    }

    /// Stops the running services `manifest` no longer has; returns their names.
    private func stopServices(notIn manifest: Manifest) -> [String] {
        let kept = Set(manifest.services)
        var stopped: [String] = []
        for (ref, service) in runningServices.reversed() where !kept.contains(ref) {
            coordinator.removeService(service)
            stopped.append(ref.reportedName)
        }
        runningServices.removeAll { !kept.contains($0.ref) }
        return stopped
    }
}

extension PluginComposition.RouteKey {
    /// `greet`, or `auth.signIn from settings`, as `send` takes it.
    var shellName: String { request.rawValue + (module.map { " from \($0.rawValue)" } ?? "") }
}

extension HostEvent {
    /// The plugin a line says was discovered, removed or excluded, which names the routes that come or go
    /// with it.
    fileprivate var pluginComingOrGoing: String? {
        switch self {
        case .pluginDiscovered(let plugin, _, _, _, _), .pluginRemoved(let plugin, _, _, _, _),
            .pluginExcluded(let plugin, _, _, _, _):
            plugin
        default: nil
        }
    }

    /// The plugin a line says was reloaded, or whose reload was refused.
    fileprivate var reloadedPlugin: String? {
        switch self {
        case .pluginReloaded(let plugin, _, _, _, _), .reloadRefused(let plugin, _): plugin
        default: nil
        }
    }
}
