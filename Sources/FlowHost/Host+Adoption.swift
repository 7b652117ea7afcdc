import FlowComposition
import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// Adopting a composition in a running host: routes, guards and registry switched to it in one step, the
/// services of the plugins that come and go started and stopped, plugins moved to another library reloaded,
/// and each change said.
extension Host {
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
        // discovered there. So is one back in use, before its services start (``PluginRegistry/update(manifest:)``).
        var reloads: [String: HostEvent] = [:]
        // One moved to a file its build is still writing, whose build that serves the composition kept: while
        // watched, reloaded once the file is whole, as a rebuild is (after this adoption is said); unwatched, its
        // reload is refused now, as a listing manifest's is. Its problem is said by the reload, not as well.
        let movedWhileWritten = moved.filter { next.plugin(named: $0)?.probeFailure?.isIncompleteFile == true }
        let waitsForTheFile = watcher?.isStopped == false
        for name in moved {
            // The tries of its old file, if it was being written, stop: this reload takes their place.
            noteWatchedChange(of: name)
            if waitsForTheFile, movedWhileWritten.contains(name) { continue }
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
            let awaitsItsFile = waitsForTheFile && movedWhileWritten.contains(plugin.name)
            if plugin.isActive, before?.isActive == true, awaitsItsFile || reloads[plugin.name] != nil {
                if let reload = reloads.removeValue(forKey: plugin.name) { events.append(reload) }
                // Services the edit adds to it start as a discovered plugin's do, and are said so: one awaiting its
                // file, from the generation that keeps serving, as when its reload is refused.
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
            case .active where plugin.directory == nil && before?.isActive != true:
                // Listed in the manifest's `plugins`, back after it was refused (its library fixed, at the
                // start or since) or dropped, or listed anew: as a discovered plugin back, its routes go live and
                // its services start.
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
        let awaited = Set(movedWhileWritten.compactMap { next.plugin(named: $0)?.probeFailure })
        let problems = next.problems.filter { problem in
            !known.contains(problem) && !saidAsRemoved.contains(problem) && !awaited.contains(problem)
                && !(problem.kind == .quarantined && reported.contains(problem.file))
        }
        events += problems.map { problem in
            .discoveryProblem(problem, stoppedServices: stoppedWith.filter { $0.error == problem }.flatMap(\.services))
        }
        // A refusal not said as a problem here (said before, in other words) still says what it stopped.
        for (error, services) in stoppedWith where !services.isEmpty && !problems.contains(error) {
            events.append(.discoveryProblem(error, stoppedServices: services))
        }
        if Self.reloadsAPlugin(events) { adoptionsBeingSaid += 1 }
        for name in movedWhileWritten where waitsForTheFile {
            let change = noteWatchedChange(of: name)
            Task { self.reloadWhenComplete(name, landedAt: nil, change: change) }
        }
        return events
    }

    /// Says `events`, an adoption's. One that reloaded a plugin counts as a swap under way until its last line:
    /// a host that restarts itself at the cap of generations, which each line it says may set off, restarts
    /// once the adoption is said whole, its reload included.
    func sayAdopted(_ events: [HostEvent]) {
        let reloads = Self.reloadsAPlugin(events)
        for (index, event) in events.enumerated() {
            if reloads, index == events.count - 1 { adoptionsBeingSaid -= 1 }
            onEvent?(event)
        }
    }

    /// Whether `events`, an adoption's, say a plugin reloaded (or its reload refused).
    private static func reloadsAPlugin(_ events: [HostEvent]) -> Bool {
        events.contains { $0.reloadedPlugin != nil }
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

    /// Stops the running services `manifest` no longer has; returns the names of those that had started (one
    /// whose start failed is asked to stop, but is not said to).
    private func stopServices(notIn manifest: Manifest) -> [String] {
        let kept = Set(manifest.services)
        var stopped: [String] = []
        for (ref, service) in runningServices.reversed() where !kept.contains(ref) {
            let started = servicesNotStarted.remove(ref) == nil
            if service is any AsyncCoordinatorService {
                stoppingServiceNames[Self.typeName(of: service), default: []].append((ref.reportedName, started))
            }
            coordinator.removeService(service)
            if started { stopped.append(ref.reportedName) }
        }
        runningServices.removeAll { !kept.contains($0.ref) }
        return stopped
    }
}
