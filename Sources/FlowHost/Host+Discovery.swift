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
        // A plugin at another library, or back in use, was loaded from its file as the composition was adopted:
        // not again here.
        let reloaded = Set(events.compactMap(\.reloadedPlugin))
        var changedInPlace: [String] = []
        func isChanged(_ name: String) -> Bool {
            changed != nil && registry.sourcePath(of: name).map(Manifest.absolutePath) == changed
        }
        for name in registry.pluginNames where !reloaded.contains(name) {
            guard let plugin = next.plugin(named: name), plugin.isActive else { continue }
            if plugin.directory == nil {
                // Listed in the manifest's `plugins`: one back after a refusal was loaded from its file as the
                // composition was adopted. Else its library changed is reloaded (or its reload refused), whether
                // it was loaded or not, as the library of a manifest that does not discover is.
                if previous.plugin(named: name)?.isActive != false, isChanged(name) { changedInPlace.append(name) }
                continue
            }
            switch (registry.status(of: name), previous.plugin(named: name)?.state) {
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
        sayAdopted(events)
        for name in changedInPlace {
            let failure = next.plugin(named: name)?.probeFailure
            // A probe refuses with none of these kinds: the composition refused the build it probed.
            let forDeclarations = failure.map { [.droppedRoute, .unknownManager, .unknownService].contains($0.kind) }
            if forDeclarations != true { registry.forgetDeclarationRefusal(of: name) }
            if let failure, !failure.isIncompleteFile {
                // A change of the file, said here: the tries of an earlier one stop.
                noteWatchedChange(of: name)
                // Its probe refused it (it crashed, hung, is quarantined, ...): not opened in this process. One
                // not loaded yet says a build refused for its bytes once, however many file events it is.
                if case .notLoaded? = registry.status(of: name) {
                    guard registry.takeUnloadedProbeRefusal(of: name, failure, probing: probing) else { continue }
                    let event = HostEvent.unloadedLibraryChanged(plugin: name, file: failure.file, refusal: failure)
                    onEvent?(event)
                    events.append(event)
                    continue
                }
                // One build refused for what it declares is said once, however many file events it lands as.
                if forDeclarations == true, !registry.takeDeclarationRefusal(of: name, failure, probing: probing) {
                    continue
                }
                let event = watchedRefusal(of: name, failure, forDeclarations: forDeclarations == true)
                onEvent?(event)
                events.append(event)
            } else {
                // A library that was already live changed in place (or is still being written, which the
                // reload waits for). One just discovered was loaded from what is there now, and reloading it
                // would only report that it is unchanged.
                let change = noteWatchedChange(of: name)
                Task { self.reloadWhenComplete(name, landedAt: landedAt ?? .now, change: change) }
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
        sayAdopted(events)
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
    var reloadedPlugin: String? {
        switch self {
        case .pluginReloaded(let plugin, _, _, _, _), .reloadRefused(let plugin, _): plugin
        default: nil
        }
    }
}
