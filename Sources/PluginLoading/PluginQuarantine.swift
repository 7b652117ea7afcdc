import FlowKit
import Glibc
import HostSupport

/// Libraries, and entry points of libraries, refused because they crashed, exited or hung a probe or a
/// supervised host, until their file changes: `quarantine.json` in the ``CacheDirectory``, listed and
/// cleared with `flowhost quarantine list|clear`.
///
/// An entry holds the library's ``FileIdentity`` when it was quarantined; once the file's content differs
/// (``FileIdentity/content``: rebuilt, copied over, touched) the entry no longer applies, and the next change to
/// the file drops it. A `chmod`, a hard link or a rename, which change only the status-change time, keep it. A
/// supervisor that saw a plugin crash a running host quarantines the entry point that crashed (a manager,
/// an action, a service) with ``add(_:kind:reason:entryPoint:)``; the rest of the plugin goes on working.
/// A library with ``wholeLibraryThreshold`` entry points quarantined is quarantined whole.
///
/// Entries are validated as they are read (an absolute library path without control characters, checked by
/// ``CacheDirectory``; a well-formed entry point) and their reasons made printable: the file may have been
/// written by someone else.
///
/// The file is read at each look-up, except within a batch of probes (``beginBatch()``, which
/// ``PluginProber/beginBatch()`` opens): there it is read once, at the batch's first look-up, and again after
/// this process changes it; what another process adds meanwhile applies from the next batch on.
package struct PluginQuarantine: Sendable {
    package static let fileName = "quarantine.json"
    /// How many of a library's entry points may be quarantined before the whole library is.
    package static let wholeLibraryThreshold = 3

    /// One quarantined library, or one entry point of it.
    package struct Entry: Sendable, Hashable {
        /// The library's path.
        package var library: String
        /// The file as it was when it was quarantined.
        package var identity: FileIdentity
        /// Why: ``PluginLoadError/Kind/crashed``, ``PluginLoadError/Kind/exited`` or
        /// ``PluginLoadError/Kind/timedOut``.
        package var kind: PluginLoadError.Kind
        /// What happened, completing "it ...": `crashed with SIGSEGV when it was probed`.
        package var reason: String
        /// When, in seconds since the epoch.
        package var since: Int64
        /// The entry point quarantined; `nil` when the whole library is.
        package var entryPoint: PluginEntryPoint?

        /// Whether the file is still the one that was quarantined, so that it is refused.
        package var isCurrent: Bool { FileIdentity(path: library)?.content == identity.content }
    }

    /// What ``add(_:kind:reason:entryPoint:)`` quarantined.
    package enum Added: Sendable, Equatable {
        case library
        case entryPoint
        /// The entry point made ``wholeLibraryThreshold``: the whole library is quarantined, having `failed`
        /// (what its entry points did, completing "N of its entry points ...": `crashed`, or `took the host
        /// down` when some hung or exited).
        case libraryAfterEntryPoints(Int, failed: String)
    }

    package var directory: CacheDirectory
    /// Within a batch, the entries read at its first look-up; copies of this quarantine share it.
    private let batch = PthreadMutex(Batch())

    private struct Batch: Sendable {
        var depth = 0
        var entries: [Entry]?
    }

    package init(directory: CacheDirectory) { self.directory = directory }

    /// Opens a batch: look-ups until the matching ``endBatch()`` read the file once. Batches nest.
    package func beginBatch() {
        batch.withLock { $0.depth += 1 }
    }

    /// Closes the batch ``beginBatch()`` opened; after the outermost one, each look-up reads the file again.
    package func endBatch() {
        batch.withLock { batch in
            batch.depth -= 1
            if batch.depth == 0 { batch.entries = nil }
        }
    }

    /// Every valid entry, current or not, sorted by library, whole libraries before their entry points.
    package func entries() -> [Entry] {
        batch.withLock { batch in
            guard batch.depth > 0 else { return read() }
            if let entries = batch.entries { return entries }
            let entries = read()
            batch.entries = entries
            return entries
        }
    }

    private func read() -> [Entry] {
        directory.entries(of: Self.fileName).flatMap { library, value -> [Entry] in
            // The cache directory passes on only absolute paths without control characters.
            guard let identity = value["file"].flatMap(FileIdentity.init(json:)) else { return [] }
            var found: [Entry] = []
            if let whole = Self.entry(value, library: library, identity: identity, entryPoint: nil) {
                found.append(whole)
            }
            for (key, detail) in value["entryPoints"]?.object ?? [:] {
                guard let entryPoint = PluginEntryPoint(key: key),
                    let entry = Self.entry(detail, library: library, identity: identity, entryPoint: entryPoint)
                else { continue }
                found.append(entry)
            }
            return found
        }.sorted { ($0.library, $0.entryPoint?.key ?? "") < ($1.library, $1.entryPoint?.key ?? "") }
    }

    private static func entry(
        _ value: JSONValue, library: String, identity: FileIdentity, entryPoint: PluginEntryPoint?
    ) -> Entry? {
        guard let kind = value["kind"]?.string.flatMap(PluginLoadError.Kind.init(rawValue:)),
            let reason = value["reason"]?.string
        else { return nil }
        let since = value["since"]?.string.flatMap { Int64($0) } ?? 0
        return Entry(
            library: library, identity: identity, kind: kind, reason: PrintableText.sanitized(reason), since: since,
            entryPoint: entryPoint)
    }

    /// The entry that refuses the whole library at `path` as its file is now (`identity`), if any.
    package func entry(for path: String, identity: FileIdentity?) -> Entry? {
        guard let identity else { return nil }
        return entries().first {
            $0.library == path && $0.identity.content == identity.content && $0.entryPoint == nil
        }
    }

    /// The entry points of the library at `path` refused as its file is now (`identity`).
    package func entryPoints(of path: String, identity: FileIdentity?) -> [PluginEntryPoint: Entry] {
        guard let identity else { return [:] }
        var refused: [PluginEntryPoint: Entry] = [:]
        for entry in entries() where entry.library == path && entry.identity.content == identity.content {
            if let entryPoint = entry.entryPoint { refused[entryPoint] = entry }
        }
        return refused
    }

    /// Quarantines the library at `path` as its file is now, or only its entry point `entryPoint`.
    ///
    /// - Parameters:
    ///   - kind: Why: ``PluginLoadError/Kind/crashed``, ``PluginLoadError/Kind/exited`` or
    ///     ``PluginLoadError/Kind/timedOut``.
    ///   - reason: What happened and where, completing "it ...": `crashed with SIGSEGV when it was probed`.
    ///   - entryPoint: The entry point that crashed; `nil` quarantines the whole library.
    /// - Returns: What is quarantined now.
    /// - Throws: ``FlowError`` when the quarantine file cannot be written.
    @discardableResult
    package func add(_ path: String, kind: PluginLoadError.Kind, reason: String, entryPoint: PluginEntryPoint? = nil)
        throws(FlowError) -> Added
    {
        guard let identity = FileIdentity(path: path) else { throw FlowError("cannot quarantine \(path): it is gone") }
        let since = String(time(nil))
        var added = Added.library
        defer { batch.withLock { $0.entries = nil } }  // read again: this process changed it
        try directory.update(Self.fileName) { entries in
            // Entries whose file changed no longer refuse anything.
            entries = entries.filter { library, value in
                value["file"].flatMap(FileIdentity.init(json:))?.content == FileIdentity(path: library)?.content
            }
            var value = entries[path]?.object ?? [:]
            value["file"] = .object(identity.json)
            let detail: [String: JSONValue] = [
                "kind": .string(kind.rawValue), "reason": .string(reason), "since": .string(since),
            ]
            if let entryPoint {
                var points = value["entryPoints"]?.object ?? [:]
                points[entryPoint.key] = .object(detail)
                value["entryPoints"] = .object(points)
                added = .entryPoint
                if points.count >= Self.wholeLibraryThreshold, value["kind"] == nil {
                    let names = points.keys.compactMap(PluginEntryPoint.init(key:)).sorted().map(\.description)
                    // A hang or an exit is no crash: said as such only when every one of them crashed; else the
                    // library's kind is that of one that did not crash.
                    let crashed = JSONValue.string(PluginLoadError.Kind.crashed.rawValue)
                    let other = points.keys.sorted().lazy.compactMap { points[$0]?.object?["kind"] }
                        .first { $0 != crashed }
                    let failed = other == nil ? "crashed" : "took the host down"
                    value.merge(
                        [
                            "kind": other ?? crashed,
                            "reason": .string(
                                "\(failed) in \(points.count) entry points: \(names.joined(separator: ", "))"),
                            "since": .string(since),
                        ], uniquingKeysWith: { $1 })
                    added = .libraryAfterEntryPoints(points.count, failed: failed)
                }
            } else {
                value.merge(detail, uniquingKeysWith: { $1 })
            }
            entries[path] = .object(value)
        }
        return added
    }

    /// Removes library `path`'s entries (whole and entry points), or with `nil` every entry; returns the
    /// libraries removed. `path` may name the library by another path than the one it was quarantined under
    /// (through a symbolic link, or a hard link): an entry whose library is the same file goes too.
    ///
    /// - Throws: ``FlowError`` when the quarantine file cannot be written.
    @discardableResult
    package func clear(_ path: String? = nil) throws(FlowError) -> [String] {
        var removed: [String] = []
        defer { batch.withLock { $0.entries = nil } }  // read again: this process changed it
        let file = path.flatMap(FileIdentity.init(path:))
        func isCleared(_ library: String) -> Bool {
            guard let path else { return true }
            return library == path || (file != nil && FileIdentity(path: library) == file)
        }
        try directory.update(Self.fileName) { entries in
            removed = entries.keys.filter(isCleared).sorted()
            for library in removed { entries[library] = nil }
        }
        return removed
    }

    /// The refusal of a library that `entry` quarantines.
    package func refusal(_ entry: Entry) -> PluginLoadError {
        PluginLoadError(
            file: entry.library, kind: .quarantined,
            message:
                "is quarantined: it \(entry.reason); it stays refused until the file changes, or run `flowhost quarantine clear \(entry.library)`"
        )
    }

    /// The refusal of `plugin`'s entry point that `entry` quarantines.
    package static func refusal(_ entry: Entry, plugin: String) -> PluginLoadError {
        PluginLoadError(
            file: entry.library, kind: .quarantined,
            message:
                "plugin '\(plugin)': \(entry.entryPoint?.description ?? "the library") is quarantined: it \(entry.reason); it stays refused until the file changes, or run `flowhost quarantine clear \(entry.library)`"
        )
    }
}
