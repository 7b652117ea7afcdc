import FlowComposition
import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading

/// Live reload: plugins and the manifest, by command or when a watched file changes (``watch()``, in Host+Watch.swift).
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
    ///     not for a plugin a manifest edit moved to the same bytes elsewhere, which goes on as it was.
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
            return refusedReload(of: name, error)
        }
    }

    /// The reload of `name` refused with `error`, counted: said with the generation that keeps serving where the
    /// loader's words would mislead (``PluginLoadError/refusedReload(keeping:loadedFrom:)``), and, when its
    /// library was `deleted`, as gone rather than as a path to check.
    func refusedReload(of name: String, _ error: PluginLoadError, deleted: Bool = false) -> HostEvent {
        stats.refusedReloads += 1
        registry.noteRefusedReload(of: name)
        guard let generation = registry.servingGeneration(of: name) else { return .reloadRefused(plugin: name, error) }
        let library = registry.library(of: name)
        guard deleted, error.kind == .notFound else {
            return .reloadRefused(plugin: name, error.refusedReload(keeping: generation, loadedFrom: library))
        }
        // The file that served is gone (`rm`, a build that failed after deleting it), named where it was.
        var gone = error
        gone.file = library ?? error.file
        gone.message = "library of plugin '\(name)' was deleted or moved away; generation \(generation) keeps serving"
        return .reloadRefused(plugin: name, gone)
    }

    /// - Parameter skippingRefused: Open nothing, and say nothing, when the library is the build a watched
    ///   change last refused for what its bytes are (``PluginRegistry/ReloadResult/refusedBefore``): a watched
    ///   change's, since a linker's one build is several file events, each of which would probe it, map
    ///   another image and say the same refusal again.
    func attemptReload(
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
                servicesNotStarted.remove(ref)
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
    /// library is reloaded from it, as a rebuild is (while the host watches, a file still being written is
    /// waited for, ``reloadWhenComplete(_:landedAt:change:awaitingFile:)``), its services handed over.
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
    func reloadManifest(unlessUnchanged: Bool) -> HostEvent? {
        let wasHeld = heldManifestEdit != nil
        guard let (event, moved) = readManifestAgain(unlessUnchanged: unlessUnchanged) else { return nil }
        // While watching, what the manifest now names is watched, however the reload was asked for; so are the
        // directories of an edit held for the plugins it waits for, and no longer those of one replaced. (The
        // watch reads a directory it adds once more, for what landed before it: a held edit is read again.)
        let reloaded = if case .manifestReloaded = event { true } else { false }
        if reloaded || wasHeld || heldManifestEdit != nil, watcher?.isStopped == false { try? watch() }
        // A loaded plugin the edit moved to another library (`.build/debug` to `.build/release`) is reloaded
        // from it, as a rebuild is: its services are handed over, and a library it cannot take (not there,
        // another pin's, past the cap) is refused while its generation keeps serving, until the file, watched
        // from now on, changes. Watched, a file that looks incomplete (its build still writing it, the edit
        // saved first) is tried again as a rebuild's is, and said refused only if it stays so. The same bytes
        // elsewhere are unchanged, and not said.
        for name in moved {
            if watcher?.isStopped == false {
                reloadWhenComplete(name, landedAt: nil)
            } else {
                reloadPlugin(name, sayingUnchanged: false)
            }
        }
        return event
    }

    /// Reads the manifest again; returns what it says, with the loaded plugins a listing manifest moved to
    /// another library (``PluginRegistry/update(manifest:)``) or lists again after dropping them, to reload.
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
}
