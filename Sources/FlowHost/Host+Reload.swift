import FlowComposition
import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading

/// Live reload: plugins and the manifest, by command or by watching their files.
extension Host {
    /// Loads a new generation of plugin `name` and switches its routes to it in one step.
    ///
    /// Managers with a screen, and managers working while they wait for something, keep running on the
    /// old generation until they end; managers working in the background, with tasks running, end as
    /// replaced (see ``replaceBackgroundManagers(of:retiring:)``). Every request from now on goes to the
    /// new generation, the requests of child flows already open too (``retargetChildFlows(of:retiring:)``). A new generation that fails to load, or lacks a manager or service the manifest
    /// still routes to it, is refused and the previous generation keeps serving.
    ///
    /// - Parameters:
    ///   - force: Load a new generation even when the library is unchanged (a watched file that did not change
    ///     is skipped instead).
    ///   - sayingUnchanged: Whether an unchanged library is reported (``HostEvent/pluginUnchanged(plugin:)``):
    ///     not for a plugin discovery just said is back, whose line said it is live.
    @discardableResult
    package func reloadPlugin(_ name: String, force: Bool = false, sayingUnchanged: Bool = true) -> HostEvent {
        let event = reloadUnsaid(name, force: force)
        if case .pluginUnchanged = event, !sayingUnchanged { return event }
        onEvent?(event)
        return event
    }

    /// ``reloadPlugin(_:force:sayingUnchanged:)`` without saying what happened: the event, for the caller to
    /// say where it belongs among its own.
    func reloadUnsaid(_ name: String, force: Bool = false) -> HostEvent {
        do {
            return try attemptReload(name, landedAt: nil, force: force)
        } catch {
            stats.refusedReloads += 1
            registry.noteRefusedReload(of: name)
            return .reloadRefused(plugin: name, error)
        }
    }

    /// - Parameter skippingRefused: Open nothing, and say nothing, when the library is the build a watched
    ///   change last refused for what its bytes are (``PluginRegistry/ReloadResult/refusedBefore``): a watched
    ///   change's, since a linker's one build is several file events, each of which would probe it, map
    ///   another image and say the same refusal again.
    private func attemptReload(
        _ name: String, landedAt: ContinuousClock.Instant?, force: Bool = false, skippingRefused: Bool = false
    ) throws(PluginLoadError) -> HostEvent {
        swapsUnderWay += 1
        defer { swapsUnderWay -= 1 }
        let managers = manifest.managerReferences.filter { $0.plugin == name }.map(\.manager)
        let services = manifest.services.filter { $0.plugin == name }.map(\.service)
        let previous = registry.status(of: name).flatMap {
            if case .loaded(let plugin) = $0 { plugin } else { nil }
        }
        let result = try registry.reload(
            name, requiredManagers: managers, requiredServices: services, force: force,
            skippingRefused: skippingRefused)
        switch result {
        case .reloaded(let generation):
            stats.reloads += 1
            let replaced = replaceServices(of: name)
            replaceBackgroundManagers(of: name, retiring: previous)
            retargetChildFlows(of: name, retiring: previous)
            return .pluginReloaded(
                plugin: name, generation: generation, file: registry.library(of: name) ?? name,
                swapTime: landedAt.map { .now - $0 }, services: replaced)
        case .unchanged:
            // Back to the bytes that serve after a refusal: said, since the refusal was the last word on it.
            guard let generation = registry.takeRefusalSinceServing(of: name) else {
                return .pluginUnchanged(plugin: name)
            }
            return .libraryRestored(plugin: name, generation: generation)
        case .refusedBefore:
            return .pluginUnchanged(plugin: name)  // its refusal was said when it landed
        }
    }

    /// Replaces the running services of plugin `name` with ones from its current generation, handing
    /// their state over where both sides adopt ``StateHandoff``; returns the names of those replaced.
    private func replaceServices(of name: String) -> [String] {
        var replaced: [String] = []
        for index in runningServices.indices where runningServices[index].ref.plugin == name {
            let (ref, old) = runningServices[index]
            // The reload checked that the new generation exports every service the manifest starts.
            guard let new = try? registry.service(ref.service, in: name).make() else { continue }
            if coordinator.replaceService(old, with: new) {
                runningServices[index].service = new
                replaced.append(ref.reportedName)
            }
        }
        return replaced
    }

    /// Reloads every plugin in use (``reloadablePluginNames``): not those a manifest edit dropped, nor those
    /// discovery removed, excluded or refused. Returns what happened to each.
    @discardableResult
    package func reloadAll(force: Bool = false) -> [HostEvent] {
        reloadablePluginNames.map { reloadPlugin($0, force: force) }
    }

    /// Reads the manifest file again. A valid one replaces the routing table and the guards in one step;
    /// an invalid one, one naming a manager or service its plugin does not export (``unexported(in:)``), or
    /// one that discovers plugins whose start requests, deep links' first steps or guard redirects no composed
    /// route handles (``recompose(_:)``), is reported and changes nothing. Requests held for a redirect stay held, judged by
    /// the guard that redirected them.
    ///
    /// Services are not restarted: a change to `services` takes effect at the next start. A manifest that
    /// discovers plugins reads its directories again (``rediscover(changed:landedAt:)``), which starts and
    /// stops the services of the plugins that come and go. A loaded plugin the new manifest moves to another
    /// library is reloaded from it (``reloadPlugin(_:force:sayingUnchanged:)``), its services handed over.
    /// While the host watches (``watch()``), the files the reloaded manifest names are watched from then on.
    @discardableResult
    package func reloadManifest() -> HostEvent {
        // Asked for, a read is said whatever it finds.
        reloadManifest(unlessUnchanged: false)!
    }

    /// ``reloadManifest()``; with `unlessUnchanged`, nothing (`nil`) when the file declares what is in force
    /// and the last read was taken (a `touch`, the same bytes written again, or a read after inotify lost
    /// events, ``FileWatcher``), or is refused as the last read was (a second event of one write), as an
    /// unchanged library says nothing. A file read back to what is in force after a refused edit is said, and
    /// one whose edit is held is read again. While the host watches, the directories of an edit held are watched
    /// (``watchedDirectories``).
    private func reloadManifest(unlessUnchanged: Bool) -> HostEvent? {
        let wasHeld = heldManifestEdit != nil
        guard let (event, moved) = readManifestAgain(unlessUnchanged: unlessUnchanged) else { return nil }
        // While watching, what the manifest now names is watched, however the reload was asked for; so are the
        // directories of an edit held for the plugins it waits for, and no longer those of one replaced. (The
        // watch reads a directory it adds once more, for what landed before it: a held edit is read again.)
        let reloaded = if case .manifestReloaded = event { true } else { false }
        if reloaded || wasHeld || heldManifestEdit != nil, watcher?.isStopped == false { try? watch() }
        // A loaded plugin the edit moved to another library (`.build/debug` to `.build/release`) is reloaded
        // from it, as a rebuild is: its services are handed over, and a library it cannot take (not there,
        // another pin's, past the cap, still being written) is refused while its generation keeps serving, until
        // the file, watched from now on, changes. The same bytes elsewhere are unchanged, and not said.
        for name in moved { reloadPlugin(name, sayingUnchanged: false) }
        return event
    }

    /// Reads the manifest again; returns what it says, with the loaded plugins a listing manifest moved to
    /// another library (``PluginRegistry/update(manifest:)``), to reload.
    private func readManifestAgain(unlessUnchanged: Bool) -> (event: HostEvent, moved: [String])? {
        let event: HostEvent
        var moved: [String] = []
        heldManifestEdit = nil  // this read replaces any edit held
        do throws(ManifestErrors) {
            let declared = try Manifest.load(path: manifest.path, maxSize: maxManifestSize)
            if unlessUnchanged, refusedManifestEdit == nil, declared == composition?.declared ?? manifest {
                return nil
            }
            let unexported = unexported(in: declared)
            if !unexported.isEmpty { throw ManifestErrors(unexported) }
            if let composed = try recompose(declared) {
                refusedManifestEdit = nil
                return (composed, [])
            }
            composition = nil
            deletedLibraries = [:]  // said only of a plugin discovery refuses
            registry.follow(nil)
            let reloaded = declared
            // Services are started once: a change to them waits for a restart, which the event says.
            let servicesChanged = Set(reloaded.services) != Set(manifest.services)
            let changes = RouteChanges(from: manifest.routes, to: reloaded.routes)
            moved = registry.update(manifest: reloaded)
            experiments.update(reloaded.experiments)
            manifest = reloaded
            coordinator.mapping = mapping(for: reloaded)
            coordinator.guards = reloaded.guards
            event = .manifestReloaded(
                file: reloaded.path, routes: reloaded.routes.count, changes: changes, servicesChanged: servicesChanged)
            refusedManifestEdit = nil
        } catch {
            defer { refusedManifestEdit = error }
            if unlessUnchanged, error == refusedManifestEdit { return nil }
            event = .manifestRejected(error)
        }
        onEvent?(event)
        return (event, moved)
    }

    /// Watches the manifest and every plugin library; reloads what changes.
    ///
    /// Every library is loaded from a private copy, so none is opened in place. A library that is still
    /// being written (truncated, or not yet an ELF file) is tried again a few times before the reload is
    /// refused.
    package func watch() throws(FlowError) {
        // A manifest named relatively is watched where the run started: plugin code that ran as the host started
        // (a service made) may have changed directory before the first command changed it back.
        WorkingDirectory.restore()
        var libraries: [(name: String, path: String)] = []
        var candidates: Set<String> = []
        func add(_ library: String, of name: String) {
            let (paths, found) = watchedPaths(ofLibrary: library, plugin: name)
            libraries += paths.map { (name: name, path: $0) }
            if !found { candidates.formUnion(paths) }
        }
        // Not those a manifest edit dropped: nothing loads them again.
        for name in registry.pluginNames {
            guard let slot = registry.slot(name) else { continue }
            if case .dropped? = outOfUse(name) { continue }
            add(slot.entry.library, of: name)
            // Before the watch: a change after it is then seen against the file found here (its stamp only).
            registry.noteUnloadedLibrary(of: name)
        }
        // A plugin the manifest's `plugins` lists that discovery refused (its library broken or missing: from
        // the start, without a slot, or since its entry was edited, its slot naming the file before) is watched
        // at the library its entry names, so that fixing or making it brings it in.
        for (name, entry) in composition?.declared.plugins ?? [:] where registry.slot(name)?.entry != entry {
            add(entry.library, of: name)
        }
        watched = (
            Manifest.absolutePath(manifest.path),
            Dictionary(grouping: libraries, by: \.path).mapValues { $0.map(\.name) }
        )
        let files = [watched.manifest] + libraries.map(\.path).filter { !candidates.contains($0) }
        if watcher?.isStopped != false {
            watcher = try FileWatcher(files: [], directories: []) { [weak self] path in
                self?.changed(path, landedAt: .now)
            }
        }
        // A directory watched whole from now on sends no event for what it got before its watch: read it.
        let added = try watcher?.watch(files: files, candidates: candidates.sorted(), directories: watchedDirectories)
        if added?.isEmpty == false { rediscover() }
    }

    /// The files to watch for the library of plugin `name`, written `library` in the manifest: the file found,
    /// else where it would be found once made (the path written, or the name in each directory of the search
    /// path), so that a library missing now is read once it is there (the watcher waits on its directory,
    /// where it can: a directory it cannot watch is left out, the others watched).
    private func watchedPaths(ofLibrary library: String, plugin name: String) -> (paths: [String], found: Bool) {
        if let path = try? registry.searchPath.locate(library, relativeTo: manifest.directory, plugin: name) {
            return ([Manifest.absolutePath(path)], true)
        }
        let paths = registry.searchPath.candidates(for: library, relativeTo: manifest.directory)
        return (paths.map(Manifest.absolutePath), false)
    }

    /// Reloads what the watched file `path` belongs to: the manifest (unless it declares what is in force,
    /// ``reloadManifest(unlessUnchanged:)``), a discovered directory, or plugins.
    ///
    /// A library's path is matched with what ``watch()`` watched for it (locating every plugin's library again
    /// cost two system calls a plugin, on every change), among the plugins the manifest still declares: one a
    /// manifest edit dropped keeps its slot, and its library is not loaded again. In a manifest that
    /// discovers, the library of a plugin its `plugins` lists is read again as a discovered one is
    /// (``rediscover(changed:landedAt:)``): what it declares is taken, and a file that cannot be probed is a
    /// refused reload that leaves the loaded generation serving.
    ///
    /// A library that vanished is waited for before discovery is read again (``discoveryChanged(_:landedAt:)``):
    /// a linker or `cp` replacing it deletes it first. Elsewhere a file that is not there changes nothing: an
    /// editor moves the manifest away before it writes the new one, and a library the manifest lists, in one
    /// that does not discover, keeps serving from its loaded copy.
    func changed(_ path: String, landedAt: ContinuousClock.Instant) {
        // A manifest named relatively is read where the run started, wherever plugin code went since.
        WorkingDirectory.restore()
        if path == watched.manifest {
            if access(path, F_OK) == 0 { _ = reloadManifest(unlessUnchanged: true) }
        } else if let slash = path.lastIndex(of: "/"), watchedDirectories.contains(String(path[..<slash])) {
            discoveryChanged(path, landedAt: landedAt)
        } else if let composition,
            watched.libraries[path]?.contains(where: { composition.declared.plugins[$0] != nil }) == true
        {
            discoveryChanged(path, landedAt: landedAt)
        } else {
            reloadLibrary(at: path, landedAt: landedAt)
        }
    }

    /// Reloads the plugins in use whose library is the watched file `path`, as a manifest that does not discover
    /// has them reloaded; a file that is not there changes nothing (the loaded copy keeps serving).
    func reloadLibrary(at path: String, landedAt: ContinuousClock.Instant) {
        guard access(path, F_OK) == 0 else { return }
        for name in watched.libraries[path] ?? [] where registry.isInUse(name) {
            reloadWhenComplete(name, landedAt: landedAt)
        }
    }

    /// Reloads `name` now; while its file looks incomplete, tries again a few times in a task. A plugin not
    /// loaded yet is not loaded: its library is checked instead (``takeWatchedChange(of:landedAt:)``).
    func reloadWhenComplete(_ name: String, landedAt: ContinuousClock.Instant) {
        do {
            reportWatched(try takeWatchedChange(of: name, landedAt: landedAt))
        } catch  where error.isIncompleteFile {
            Task { await retryReload(name, landedAt: landedAt) }
        } catch {
            sayWatchedRefusal(of: name, error)
        }
    }

    /// Takes a change to the watched library of plugin `name`: reloads a plugin loaded (or refused); checks
    /// the library of one not loaded yet without loading it, since plugins load on first use and the new
    /// library will be the one loaded then (``PluginRegistry/checkUnloadedLibrary(of:)``). No reload is
    /// counted for it.
    ///
    /// - Throws: ``PluginLoadError`` for a reload refused or a library loading would refuse.
    private func takeWatchedChange(of name: String, landedAt: ContinuousClock.Instant) throws(PluginLoadError)
        -> HostEvent
    {
        guard case .notLoaded? = registry.status(of: name) else {
            return try attemptReload(name, landedAt: landedAt, skippingRefused: true)
        }
        switch try registry.checkUnloadedLibrary(of: name) {
        case .unchanged: return .pluginUnchanged(plugin: name)
        case .changed(let file): return .unloadedLibraryChanged(plugin: name, file: file, refusal: nil)
        }
    }

    /// Says the refusal `error` of a watched change to the library of plugin `name` (``watchedRefusal(of:_:forDeclarations:)``),
    /// taken whether or not anyone listens: it counts the refusal and notes it for the plugin. Not the same
    /// refusal of the file as it still is, said already, as a second event of one write brings
    /// (``PluginRegistry/isSaidRefusal(of:_:)``).
    private func sayWatchedRefusal(of name: String, _ error: PluginLoadError) {
        if registry.isSaidRefusal(of: name, error) { return }
        // Made outside `onEvent?(...)`, which would skip it with no one listening.
        let refusal = watchedRefusal(of: name, error)
        onEvent?(refusal)
    }

    /// The event of a watched change to the library of plugin `name` refused with `error`: a refused reload,
    /// counted, its build remembered so that the next events of the same build say nothing
    /// (``PluginRegistry/noteRefusedBuild(of:_:)``), or for a plugin not loaded yet the refusal its first
    /// use would meet, which is no reload: its bytes, refused for what they are, are remembered in the same
    /// way so that the next events of the same build say nothing
    /// (``PluginRegistry/noteRefusedUnloadedLibrary(of:_:)``), and what the watch knew of its library before
    /// is forgotten, so that the library known before, back, is said again.
    ///
    /// - Parameter forDeclarations: Whether the build was refused for what it declares, by the composition
    ///   (``PluginComposition/droppedRoutes(after:)``, ``PluginComposition/brokenRebuilds(after:)``): it is
    ///   whole and probed, so the refusal says which generation stays.
    func watchedRefusal(of name: String, _ error: PluginLoadError, forDeclarations: Bool = false) -> HostEvent {
        guard case .notLoaded? = registry.status(of: name) else {
            stats.refusedReloads += 1
            registry.noteRefusedReload(of: name)
            registry.noteRefusedBuild(of: name, error)
            var error = error
            if forDeclarations, let generation = registry.servingGeneration(of: name) {
                error.message += "; generation \(generation) keeps serving"
            }
            return .reloadRefused(plugin: name, error)
        }
        registry.noteRefusedUnloadedLibrary(of: name, error)
        return .unloadedLibraryChanged(plugin: name, file: error.file, refusal: error)
    }

    /// Reports what a change to a watched library did: nothing when its content is unchanged (a `touch`, the
    /// same bytes written again, a second event of one write), which only a `reload` command says. Bytes back
    /// to those that serve after a refused reload are ``HostEvent/libraryRestored(plugin:generation:)``, said.
    private func reportWatched(_ event: HostEvent) {
        if case .pluginUnchanged = event { return }
        onEvent?(event)
    }

    /// The waits before each new try of a file that looks incomplete, or of a library that vanished
    /// (``discoveryChanged(_:landedAt:)``): longer each time, 2.25 s in all.
    static let retryDelays: [Duration] = (1...9).map { .milliseconds(50 * $0) }

    /// Tries the reload (or check: ``takeWatchedChange(of:landedAt:)``) of `name` again, waiting longer each
    /// time, while its file looks incomplete.
    private func retryReload(_ name: String, landedAt: ContinuousClock.Instant) async {
        for (attempt, delay) in Self.retryDelays.enumerated() {
            try? await Task.sleep(for: delay)
            do {
                reportWatched(try takeWatchedChange(of: name, landedAt: landedAt))
                return
            } catch  where attempt < Self.retryDelays.count - 1 && error.isIncompleteFile {
                continue
            } catch {
                sayWatchedRefusal(of: name, error)
                return
            }
        }
    }

    /// The stats as lines for people: requests per manager, generations per plugin, exposures.
    package var statsLines: [String] {
        var lines = [
            "requests: \(stats.handled.values.reduce(0, +)) handled, \(stats.unhandled) unhandled, \(stats.failed) failed, \(stats.queued) queued, \(stats.deadLettered) dead-lettered"
        ]
        for (manager, count) in handledByManager.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(manager): \(count)")
        }
        // An image no longer serving is an old generation, or the last image of a plugin out of use: both stay
        // mapped, since a Swift image is never closed.
        lines.append(
            "plugins: \(counted(stats.reloads, "reload")), \(stats.refusedReloads) refused, \(counted(registry.leakedImages, "image")) no longer serving, still mapped (cap \(registry.maxImagesPerPlugin) images per plugin)"
        )
        for name in registry.pluginNames {
            lines.append(
                "  \(name): \(statsStatus(of: name).words), \(counted(registry.openedImages(of: name), "image"))")
        }
        for (experiment, variants) in HostStats.exposureCounts(stats.exposures, of: manifest.experiments) {
            let counts = variants.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
            let without = stats.withoutSubject[experiment].map { ", \(counted($0, "request")) without a subject" } ?? ""
            lines.append("experiment \(experiment): exposures \(counts)\(without)")
        }
        return lines
    }
}

extension PluginLoadError {
    /// Whether the file looks like a library still being written, worth trying again shortly.
    var isIncompleteFile: Bool {
        kind == .notELF || kind == .unreadable || kind == .incomplete
    }
}
