import FlowComposition
import FlowManifest
import Glibc

/// A watched library that vanishes while its plugin is in use, in a manifest that discovers: a linker or
/// `cp` replacing it deletes it (or moves it away) first, so it is waited for before it is said removed.
extension Host {
    /// Takes a change that ``watch()`` saw to discovery: a file of a discovered directory, the directory
    /// itself, or the library of a plugin the manifest's `plugins` lists.
    ///
    /// A library of a plugin in use that is not there is waited for, on the schedule of a reload's retries
    /// (``retryDelays``): back within it, it is a change in place, which reloads the plugin and hands its
    /// services' state over; still gone after it, discovery is read again, which says the plugin removed.
    /// Meanwhile the other changes to discovery are held, and read again in order once no library is
    /// waited for. A manifest reloaded meanwhile reads discovery at once, as does ``watch()``: each read keeps
    /// the plugins of the libraries awaited in use, as they were (``PluginComposition``'s `awaiting`), so that
    /// one back is reloaded in place rather than said removed and then discovered afresh.
    func discoveryChanged(_ path: String, landedAt: ContinuousClock.Instant) {
        if access(path, F_OK) != 0, isLibraryInUse(path) {
            if vanishedLibraries.waiting.insert(path).inserted {
                Task { await awaitReturn(of: path) }
            }
            return
        }
        vanishedLibraries.waiting.remove(path)
        vanishedLibraries.held.append((path, landedAt))
        if vanishedLibraries.waiting.isEmpty { rediscoverHeldChanges() }
    }

    /// Whether `path` is the library of a plugin discovery has in use.
    private func isLibraryInUse(_ path: String) -> Bool {
        composition?.plugins.contains { $0.isActive && Manifest.absolutePath($0.library) == path } == true
    }

    /// Waits for the vanished library `path` to be back; when it is not, takes it as removed.
    private func awaitReturn(of path: String) async {
        for delay in Self.retryDelays {
            try? await Task.sleep(for: delay)
            // Back, and its change taken; or the host stopped.
            guard vanishedLibraries.waiting.contains(path) else { return }
        }
        vanishedLibraries.waiting.remove(path)
        vanishedLibraries.held.append((path, .now))
        if vanishedLibraries.waiting.isEmpty { rediscoverHeldChanges() }
    }

    /// Reads discovery again for each change held, each path once, in the order they came.
    private func rediscoverHeldChanges() {
        let held = vanishedLibraries.held
        vanishedLibraries.held = []
        var seen: Set<String> = []
        for change in held where seen.insert(change.path).inserted {
            rediscover(changed: change.path, landedAt: change.landedAt)
        }
    }
}
