import FlowComposition
import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading

/// Watching: the manifest and the plugins' libraries watched, and what a change to one of them reloads; a library
/// still being written is tried again before its reload is refused.
extension Host {
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
    /// a linker or `cp` replacing it deletes it first. So is a library the manifest lists, in one that does not
    /// discover, which is said refused if it stays away, its loaded copy serving (``reloadLibrary(at:landedAt:)``).
    /// A manifest that is not there changes nothing: an editor moves it away before it writes the new one.
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
    /// has them reloaded. A file that is not there is waited for, as one still being written is: a linker or
    /// `cp` replacing it deletes it first; still gone after the tries, it is a refused reload (the loaded copy
    /// keeps serving), or for a plugin not loaded yet the refusal its first use would meet.
    func reloadLibrary(at path: String, landedAt: ContinuousClock.Instant) {
        let gone = access(path, F_OK) != 0
        for name in watched.libraries[path] ?? [] where registry.isInUse(name) {
            reloadWhenComplete(name, landedAt: landedAt, awaitingFile: gone)
        }
    }

    /// Reloads `name` now; while its file looks incomplete, tries again a few times in a task, until a later
    /// change of the file takes over the wait (a build written slowly is said refused once, if it stays
    /// incomplete after its last write, not at each write). A plugin not loaded yet is not loaded: its library
    /// is checked instead (``takeWatchedChange(of:landedAt:)``).
    ///
    /// - Parameters:
    ///   - landedAt: When the file landed, which the reload's line times from; `nil` for a plugin a manifest edit
    ///     moved to another library, whose file landed before.
    ///   - change: The change (``noteWatchedChange(of:)``) noted when it was seen, for a reload made in a task of
    ///     its own: nothing is done once a later change took over. `nil`: a change seen now.
    ///   - awaitingFile: Whether the change was the file going away: one not there is then tried again too, as a
    ///     linker or `cp` deletes it before it writes the new one.
    func reloadWhenComplete(
        _ name: String, landedAt: ContinuousClock.Instant?, change: Int? = nil, awaitingFile: Bool = false
    ) {
        // Out of use since the change was seen: the edit or the discovery that took it out said why.
        guard outOfUse(name) == nil, change.map({ watchedChanges[name] == $0 }) ?? true else { return }
        let change = change ?? noteWatchedChange(of: name)
        do {
            reportWatched(try takeWatchedChange(of: name, landedAt: landedAt))
        } catch  where Self.mayComeRight(error, awaitingFile: awaitingFile) {
            Task { await retryReload(name, change: change, landedAt: landedAt, awaitingFile: awaitingFile) }
        } catch {
            sayWatchedRefusal(of: name, error)
        }
    }

    /// Notes a change of the watched library of plugin `name`, which takes over from the tries of an earlier one
    /// (``retryReload(_:change:landedAt:awaitingFile:)``); returns its number.
    @discardableResult
    func noteWatchedChange(of name: String) -> Int {
        let change = watchedChanges[name, default: 0] + 1
        watchedChanges[name] = change
        return change
    }

    /// Takes a change to the watched library of plugin `name`: reloads a plugin loaded (or refused); checks
    /// the library of one not loaded yet without loading it, since plugins load on first use and the new
    /// library will be the one loaded then (``PluginRegistry/checkUnloadedLibrary(of:)``). No reload is
    /// counted for it.
    ///
    /// - Throws: ``PluginLoadError`` for a reload refused or a library loading would refuse.
    private func takeWatchedChange(of name: String, landedAt: ContinuousClock.Instant?) throws(PluginLoadError)
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

    /// Says the refusal `error` of a watched change to the library of plugin `name`
    /// (``watchedRefusal(of:_:forDeclarations:deleted:)``), taken whether or not anyone listens: it counts the
    /// refusal and notes it for the plugin. Not the same refusal of the file as it still is, said already, as a
    /// second event of one write brings (``PluginRegistry/isSaidRefusal(of:_:)``).
    private func sayWatchedRefusal(of name: String, _ error: PluginLoadError, deleted: Bool = false) {
        if registry.isSaidRefusal(of: name, error) { return }
        // Made outside `onEvent?(...)`, which would skip it with no one listening.
        let refusal = watchedRefusal(of: name, error, deleted: deleted)
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
    /// - Parameters:
    ///   - forDeclarations: Whether the build was refused for what it declares, by the composition
    ///     (``PluginComposition/droppedRoutes(after:)``, ``PluginComposition/brokenRebuilds(after:)``): it is
    ///     whole and probed, so the refusal says which generation stays.
    ///   - deleted: Whether the change was the library going away (``reloadLibrary(at:landedAt:)``).
    func watchedRefusal(
        of name: String, _ error: PluginLoadError, forDeclarations: Bool = false, deleted: Bool = false
    ) -> HostEvent {
        guard case .notLoaded? = registry.status(of: name) else {
            registry.noteRefusedBuild(of: name, error)
            guard forDeclarations, let generation = registry.servingGeneration(of: name) else {
                return refusedReload(of: name, error, deleted: deleted)
            }
            var error = error
            error.message += "; generation \(generation) keeps serving"
            return refusedReload(of: name, error)
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

    /// Whether a watched library refused with `error` may load once its writer is done: a file that looks
    /// incomplete, or, when `awaitingFile`, one not there.
    private static func mayComeRight(_ error: PluginLoadError, awaitingFile: Bool) -> Bool {
        error.isIncompleteFile || (awaitingFile && error.kind == .notFound)
    }

    /// Tries the reload (or check: ``takeWatchedChange(of:landedAt:)``) of `name` again, waiting longer each
    /// time, while its file looks incomplete, the plugin is in use and `change` is the file's last change seen:
    /// one a manifest edit drops or discovery removes meanwhile is tried no further, nor a file written again
    /// since, whose own tries go on.
    private func retryReload(
        _ name: String, change: Int, landedAt: ContinuousClock.Instant?, awaitingFile: Bool
    ) async {
        for (attempt, delay) in Self.retryDelays.enumerated() {
            try? await Task.sleep(for: delay)
            guard watchedChanges[name] == change, outOfUse(name) == nil else { return }
            do {
                reportWatched(try takeWatchedChange(of: name, landedAt: landedAt))
                return
            } catch  where attempt < Self.retryDelays.count - 1 && Self.mayComeRight(error, awaitingFile: awaitingFile)
            {
                continue
            } catch {
                sayWatchedRefusal(of: name, error, deleted: awaitingFile)
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
