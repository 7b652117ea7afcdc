import FlowManifest
import HostSupport
import PluginLoading

/// A watched library of a plugin not loaded yet: a change to it is checked, not loaded. The plugin loads on
/// its first request, from the library there then, as every plugin does; until then nothing of the new
/// library runs, and the watch only says whether that load would be refused.
extension PluginRegistry {
    /// What the watch knows of the library of a plugin not loaded yet.
    struct UnloadedLibrary {
        /// The file's stamp when it was last looked at: a change event that leaves it as it was (a file
        /// opened for writing and closed unwritten) is no change, and nothing is read.
        var stamp: FileIdentity
        /// The fingerprint of its bytes (``PluginCopy/fingerprint``), once a change made them read: a change
        /// that leaves them as they were (the same build copied again) is no change either. `nil` until then,
        /// so that starting the watch reads no library.
        var fingerprint: UInt64?
        /// The refusal discovery's probe gave these bytes, said (``takeUnloadedProbeRefusal(of:_:probing:)``):
        /// the same refusal of the same bytes again says nothing, and a check of them is a change, since a
        /// probe finds what the check does not. `nil` for a library the check passed or refused.
        var probeRefusal: PluginLoadError? = nil
    }

    /// What ``PluginRegistry/checkUnloadedLibrary(of:)`` last read and refused: the library, and the refusal
    /// it threw, which ``PluginRegistry/noteRefusedUnloadedLibrary(of:_:)`` remembers if it is the one said.
    struct UnloadedRefusal {
        /// The library as it was read: its stamp, and the fingerprint of the bytes refused.
        let library: UnloadedLibrary
        /// The refusal of those bytes.
        let error: PluginLoadError
    }

    /// What a change to the library of a plugin not loaded yet came to.
    package enum UnloadedLibraryCheck: Sendable, Equatable {
        /// The file, or its bytes, are as the watch last knew them.
        case unchanged
        /// The library at `file` changed and passes every check loading makes before it runs plugin code: the
        /// plugin will load it on first use.
        case changed(file: String)
    }

    /// Notes the stamp of the library of plugin `name` while no image of it is loaded, for a watched change to
    /// the file to be told from an event that left it as it was: the plugin loads on its first request, not
    /// because its file was closed after writing. Only the file's status is read (one `stat`), so that
    /// watching a thousand plugins reads none of their libraries. Nothing is noted of a plugin loaded or
    /// refused, or of a library not there.
    ///
    /// Each slot is noted once, when the watch first covers it: the watch is made anew when discovery is read
    /// again or the manifest reloaded, which a change to the library itself does in a manifest that discovers,
    /// before the change is checked (``checkUnloadedLibrary(of:)``); noted again then, the new file would be
    /// taken for the one known, and its change said nowhere.
    package func noteUnloadedLibrary(of name: String) {
        guard let slot = slots[name], !slot.unloadedLibraryNoted else { return }
        slot.unloadedLibraryNoted = true
        guard case .notLoaded = slot.status,
            let source = try? searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: name),
            let stamp = FileIdentity(path: source)
        else { return }
        slot.unloadedLibrary = UnloadedLibrary(stamp: stamp)
    }

    /// Notes that a watched change to the library of plugin `name`, not loaded yet, was said refused with
    /// `error`. The bytes ``checkUnloadedLibrary(of:)`` refused with that same error, for what they are
    /// (``PluginLoadError/isOfTheBytes``), and still in the file, are remembered: a linker's one build is
    /// several file events, and the next ones then say nothing, as for a loaded plugin
    /// (``noteRefusedBuild(of:_:)``). Anything else is forgotten (a refusal of the file's mode, say), as is any
    /// library known before the refusal: its next change is checked, even back to the bytes known before.
    /// (A refusal that discovery's probe gave is taken by ``takeUnloadedProbeRefusal(of:_:probing:)``.)
    /// `reload` of the plugin still tries, and says, the bytes remembered.
    package func noteRefusedUnloadedLibrary(of name: String, _ error: PluginLoadError) {
        guard let slot = slots[name] else { return }
        let refusal = slot.unloadedRefusal
        slot.unloadedRefusal = nil
        slot.unloadedLibrary = nil
        guard let refusal, refusal.error == error, error.isOfTheBytes,
            let fingerprint = refusal.library.fingerprint, libraryFingerprint(of: slot) == fingerprint
        else { return }
        // Known as any library is: the same bytes are no change, other bytes (those known before too) are one.
        slot.unloadedLibrary = refusal.library
    }

    /// Takes the refusal `error` that discovery's probe gave the changed library of plugin `name`, not loaded
    /// yet: whether to say it. A refusal of the bytes themselves (``PluginLoadError/isOfTheBytes``) is
    /// remembered with the fingerprint of those bytes, so that the next file events of the same build (a
    /// linker's close, a `touch`) say nothing, as a check's refusal is (``noteRefusedUnloadedLibrary(of:_:)``);
    /// so is the quarantine its crash left on the same file, that crash's news. Only when the file's stamp is
    /// still `stamp`, taken before the probe: the bytes read then are the ones probed. Anything else is said
    /// and forgotten, as is what the watch knew of the library before.
    ///
    /// - Parameter stamp: The stamp of the library's file before discovery probed it; `nil` if unknown.
    package func takeUnloadedProbeRefusal(of name: String, _ error: PluginLoadError, probing stamp: FileIdentity?)
        -> Bool
    {
        guard let slot = slots[name] else { return true }
        let known = slot.unloadedLibrary
        slot.unloadedLibrary = nil
        slot.unloadedRefusal = nil
        guard let stamp,
            let source = try? searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: name),
            FileIdentity(path: source) == stamp
        else { return true }
        if error.kind == .quarantined, let known, known.stamp == stamp,
            let crash = known.probeRefusal, crash.kind == .crashed || crash.kind == .exited
        {
            slot.unloadedLibrary = known
            return false
        }
        guard error.isOfTheBytes,
            let fingerprint = try? PluginCopy(reading: source, allowInsecure: true).fingerprint,
            FileIdentity(path: source) == stamp
        else { return true }
        slot.unloadedLibrary = UnloadedLibrary(stamp: stamp, fingerprint: fingerprint, probeRefusal: error)
        return known?.fingerprint != fingerprint || known?.probeRefusal != error
    }

    /// Checks the changed library of plugin `name`, not loaded yet, as loading it would before any of its code
    /// runs, without loading it: its file and permissions, the manifest's `sha256` pin, the quarantine, its ELF
    /// headers and entry point, the libraries it needs and the FlowKit it was built against. What a probe or
    /// the load itself would find (a constructor that crashes, an unmet requirement) waits for the first use.
    ///
    /// A library that passes is noted, so that the next change is compared with it; one refused is kept for
    /// ``noteRefusedUnloadedLibrary(of:_:)``, which remembers it or forgets it once the refusal is said. Bytes
    /// remembered refused are ``UnloadedLibraryCheck/unchanged`` too: their refusal was said when they landed.
    ///
    /// - Throws: ``PluginLoadError``, the refusal loading would give, naming the file.
    package func checkUnloadedLibrary(of name: String) throws(PluginLoadError) -> UnloadedLibraryCheck {
        guard let slot = slots[name] else {
            throw PluginLoadError(
                file: manifest.path, kind: .notFound, message: "no plugin named '\(name)' in the manifest")
        }
        let known = slot.unloadedLibrary
        slot.unloadedLibrary = nil
        slot.unloadedRefusal = nil
        let source = try searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: name)
        // Stamped before the bytes are read: a file replaced in between is read again at its own event.
        guard let stamp = FileIdentity(path: source) else {
            throw PluginLoadError(file: source, kind: .notFound, message: "plugin library not found")
        }
        if let known, known.probeRefusal == nil, known.stamp == stamp {
            slot.unloadedLibrary = known
            return .unchanged
        }
        let copy = try PluginCopy(reading: source, allowInsecure: allowsInsecurePlugins)
        let fingerprint = copy.fingerprint
        if let known, known.probeRefusal == nil, known.fingerprint == fingerprint {
            slot.unloadedLibrary = UnloadedLibrary(stamp: stamp, fingerprint: fingerprint)
            return .unchanged
        }
        let read = UnloadedLibrary(stamp: stamp, fingerprint: fingerprint)
        do throws(PluginLoadError) {
            try copy.verify(sha256: slot.entry.sha256)
            if let quarantine = prober?.quarantine ?? quarantine,
                let listed = quarantine.entry(for: source, identity: stamp)
            {
                throw quarantine.refusal(listed)
            }
            try PluginLoader.check(copy)
        } catch {
            slot.unloadedRefusal = UnloadedRefusal(library: read, error: error)
            throw error
        }
        slot.unloadedLibrary = read
        return .changed(file: source)
    }
}
