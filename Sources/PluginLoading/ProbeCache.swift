import FlowKit
import Glibc
import HostSupport

/// The registry cache: what probes found, in `registry.json` of the ``CacheDirectory``, so that a library
/// probed once is not probed again until its file changes.
///
/// An entry is keyed by the library's path and holds its ``FileIdentity`` (device, inode, size, mtime) and,
/// when the manifest pins it, the pinned digest; a lookup whose file or pin differs misses, and the next
/// store replaces the entry. Only successful probes are cached: a refusal is quick to find again, and a
/// library that crashed, exited or hung goes to the ``PluginQuarantine`` instead.
///
/// The file is read once, at the first lookup, and the entries kept: a thousand lookups cost one read and
/// parse, not a thousand. Stores are written once per batch (``beginBatch()`` to ``endBatch()``: an eager
/// start, `validate`, a discovery), or at once outside a batch (the lazy first load of a plugin). A write
/// re-reads the file, adds the entries stored since the last write to what is there now (another host's
/// entries are kept), drops the entries whose library is gone or has changed since it was probed, and
/// replaces the file atomically (``CacheDirectory``). Entries another host writes after the read are not
/// seen until the next process: their libraries are probed again, and the entries rewritten.
package final class ProbeCache: Sendable {
    package static let fileName = "registry.json"
    package let directory: CacheDirectory
    private let state = PthreadMutex(State())

    private struct State: Sendable {
        /// The file's entries as read at the first lookup, with the stores since; `nil` before.
        var entries: [String: JSONValue]?
        /// The entries stored since the last write.
        var unwritten: [String: JSONValue] = [:]
        /// How many batches are open; stores are written when the last one ends.
        var batches = 0
        var reads = 0
        var writes = 0
    }

    package init(directory: CacheDirectory) { self.directory = directory }

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

    /// Records a successful probe, written at the end of the batch, or now outside one.
    package func store(_ plugin: ProbedPlugin, identity: FileIdentity, pin: String?) {
        let entry: JSONValue = [
            "file": .object(identity.json), "digest": pin.map(JSONValue.string) ?? .null, "plugin": plugin.json,
        ]
        let batched = state.withLock { state in
            state.entries?[plugin.path] = entry
            state.unwritten[plugin.path] = entry
            return state.batches > 0
        }
        if !batched { write() }
    }

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

    /// Writes the entries stored since the last write, merged into the file as it is now, without the
    /// entries whose library is gone or changed; a cache that cannot be written is left as it is.
    private func write() {
        let unwritten = state.withLock { state in
            defer { state.unwritten = [:] }
            return state.unwritten
        }
        guard !unwritten.isEmpty else { return }
        let written: Void? = try? directory.update(Self.fileName) { entries in
            entries.merge(unwritten) { $1 }
            entries = entries.filter { path, entry in
                entry["file"].flatMap(FileIdentity.init(json:)).map { FileIdentity(path: path) == $0 } ?? false
            }
        }
        if written != nil { state.withLock { $0.writes += 1 } }
    }
}
