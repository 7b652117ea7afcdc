import FlowKit
import Glibc
import HostSupport
import Synchronization

/// The registry cache: what probes found, in `registry.json` of the ``CacheDirectory``, so that a library
/// probed once is not probed again until its file changes.
///
/// An entry is keyed by the library's path and holds its ``FileIdentity`` (device, inode, size, mtime and
/// ctime) and, when the manifest pins it, the pinned digest; a lookup whose file or pin differs misses, and
/// the next store replaces the entry. An entry an older flowhost wrote, without the ctime, misses too. Only
/// successful probes are cached: a refusal is quick to find again, and a library that crashed, exited or hung
/// goes to the ``PluginQuarantine`` instead.
///
/// The file is read once, at the first lookup, and the entries kept: a thousand lookups cost one read and
/// parse, not a thousand. Stores are written once per batch (``beginBatch()`` to ``endBatch()``: an eager
/// start, `validate`, a discovery). Outside a batch (the lazy first load of a plugin) a store is written at
/// once when the last write is ``writeInterval`` old, else kept pending for ``writeIfDue()`` (the end of each
/// shell input) or the process's exit: each write costs the whole file, so a run that first loads a thousand
/// plugins one by one writes it about once a second rather than a thousand times. A write re-reads the file,
/// adds the entries stored since the last write to what is there now (another host's entries are kept),
/// drops the entries whose library is gone or has changed since it was probed, and replaces the file
/// atomically (``CacheDirectory``). Entries another host writes after the read are not
/// seen until the next process: their libraries are probed again, and the entries rewritten. Entries still
/// pending when the process is killed or crashes are lost, and their libraries only probed again.
package final class ProbeCache: Sendable {
    package static let fileName = "registry.json"
    /// The shortest time between two writes of stores made outside a batch.
    package static let writeInterval: Duration = .seconds(1)
    package let directory: CacheDirectory
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = PthreadMutex(State())
    /// Whether stores are pending (``State/unwritten`` is not empty), read without the lock: the end of each
    /// shell input asks (``writeIfDue()``), and almost always nothing is.
    private let hasUnwritten = Atomic<Bool>(false)

    private struct State: Sendable {
        /// The file's entries as read at the first lookup, with the stores since; `nil` before.
        var entries: [String: JSONValue]?
        /// The entries stored since the last write.
        var unwritten: [String: JSONValue] = [:]
        /// How many batches are open; stores are written when the last one ends.
        var batches = 0
        /// When the file was last written (or a write failed); `nil` before.
        var lastWrite: ContinuousClock.Instant?
        var reads = 0
        var writes = 0
    }

    /// A cache in `directory`.
    ///
    /// - Parameters:
    ///   - writeInterval: The shortest time between two writes of stores made outside a batch.
    ///   - now: The clock those times are read from (a test's own, to count writes without waiting).
    package init(
        directory: CacheDirectory, writeInterval: Duration = ProbeCache.writeInterval,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.directory = directory
        self.interval = writeInterval
        self.now = now
        HostProcess.remember()
    }

    /// How many times this cache read the file.
    package var reads: Int { state.withLock { $0.reads } }
    /// How many times this cache wrote the file.
    package var writes: Int { state.withLock { $0.writes } }

    /// The cached probe of the library at `path`, if it was probed as the file is now (and with `pin`). An
    /// entry without the digest of the bytes probed (written by an older flowhost) misses.
    package func lookup(_ path: String, identity: FileIdentity, pin: String?) -> ProbedPlugin? {
        let entry = state.withLock { state in
            if state.entries == nil {
                state.entries = directory.entries(of: Self.fileName).merging(state.unwritten) { $1 }
                state.reads += 1
            }
            return state.entries?[path]
        }
        guard let entry, let stored = entry["file"], FileIdentity(json: stored) == identity,
            entry["digest"]?.string == pin,
            let plugin = entry["plugin"].flatMap({ ProbedPlugin(json: $0, path: path) }), plugin.digest != nil
        else { return nil }
        return plugin
    }

    /// Records a successful probe, written at the end of the batch; outside one, now when the last write is
    /// ``writeInterval`` old, else later (``writeIfDue()``, at the latest at exit).
    package func store(_ plugin: ProbedPlugin, identity: FileIdentity, pin: String?) {
        let entry: JSONValue = [
            "file": .object(identity.json), "digest": pin.map(JSONValue.string) ?? .null, "plugin": plugin.json,
        ]
        let due = state.withLock { state in
            state.entries?[plugin.path] = entry
            state.unwritten[plugin.path] = entry
            hasUnwritten.store(true, ordering: .relaxed)
            PendingAtExit.keep(self)
            return state.batches == 0 && isDue(state)
        }
        if due { write() }
    }

    /// Writes the stores kept pending outside a batch if the last write is ``writeInterval`` old; the shell
    /// calls it at the end of each input.
    package func writeIfDue() {
        // Before the lock: a child plugin code forked that came back here would wait for ever on a lock another
        // thread of the host held at the fork, and write nothing anyway (``write(creatingDirectory:)``). Asked
        // only when something is pending: it is a system call.
        guard hasUnwritten.load(ordering: .relaxed), HostProcess.isThisOne else { return }
        let due = state.withLock { state in state.batches == 0 && !state.unwritten.isEmpty && isDue(state) }
        if due { write() }
    }

    /// Writes the stores not written yet, now (tests; the host writes them at exit).
    package func writePending() { write() }

    /// Opens a batch: stores are kept until the matching ``endBatch()``. Batches nest; the outermost one
    /// writes.
    package func beginBatch() {
        state.withLock { $0.batches += 1 }
    }

    /// Closes the batch ``beginBatch()`` opened, writing what it stored when it is the outermost one.
    package func endBatch() {
        let last = state.withLock { state in
            state.batches -= 1
            return state.batches == 0
        }
        if last { write() }
    }

    /// Whether the last write is ``writeInterval`` old (or there was none).
    private func isDue(_ state: State) -> Bool {
        state.lastWrite.map { now() - $0 >= interval } ?? true
    }

    /// Writes the entries stored since the last write, merged into the file as it is now, without the
    /// entries whose library is gone or changed; a cache that cannot be written is left as it is.
    ///
    /// - Parameter creatingDirectory: Whether to make the cache directory when it is missing; at exit it is
    ///   not, since it was made by this cache's first write and someone has removed it since.
    fileprivate func write(creatingDirectory: Bool = true) {
        // A child plugin code forked that came back into the host's code (an input's end writes what is due)
        // would wait for ever on a lock another thread of the host held at the fork.
        guard HostProcess.isThisOne else { return }
        let unwritten = state.withLock { state in
            defer {
                state.unwritten = [:]
                hasUnwritten.store(false, ordering: .relaxed)
                PendingAtExit.forget(self)
            }
            return state.unwritten
        }
        guard !unwritten.isEmpty else { return }
        defer { state.withLock { $0.lastWrite = now() } }
        let written: Void? = try? directory.update(Self.fileName, creatingDirectory: creatingDirectory) { entries in
            entries.merge(unwritten) { $1 }
            entries = entries.filter { path, entry in
                entry["file"].flatMap(FileIdentity.init(json:)).map { FileIdentity(path: path) == $0 } ?? false
            }
        }
        if written != nil { state.withLock { $0.writes += 1 } }
    }
}

/// The caches holding stores not yet written, written when the process exits (`exit`, not `_exit` nor a
/// crash), so that a host that ends, normally or on an error, keeps what it probed.
private enum PendingAtExit {
    private static let caches = PthreadMutex<[ObjectIdentifier: ProbeCache]>([:])
    /// Asks for ``writeAll()`` at exit, once, when the first cache is kept.
    private static let registration: Void = {
        HostProcess.remember()
        atexit { PendingAtExit.writeAll() }
    }()

    /// Keeps `cache` until its stores are written.
    static func keep(_ cache: ProbeCache) {
        _ = registration
        caches.withLock { $0[ObjectIdentifier(cache)] = cache }
    }

    /// Forgets `cache`, whose stores are written.
    static func forget(_ cache: ProbeCache) {
        caches.withLock { $0[ObjectIdentifier(cache)] = nil }
    }

    /// Writes each kept cache's stores, into its directory only if that is still there.
    private static func writeAll() {
        // A forked child's `exit` writes nothing, and takes no lock another thread held at the fork.
        guard HostProcess.isThisOne else { return }
        for cache in caches.withLock({ Array($0.values) }) { cache.write(creatingDirectory: false) }
    }
}
