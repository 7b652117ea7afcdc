import FlowKit
import Glibc

/// Libraries refused because loading them crashed, exited or hung a probe, until their file changes:
/// `quarantine.json` in the ``CacheDirectory``, listed and cleared with `flowhost quarantine list|clear`.
///
/// An entry holds the library's ``FileIdentity`` when it was quarantined; once the file differs (rebuilt,
/// copied over, touched) the entry no longer applies, and the next change to the file drops it. A
/// supervisor that saw a plugin crash a running host quarantines it with ``add(_:kind:reason:)`` too.
public struct PluginQuarantine: Sendable {
    public static let fileName = "quarantine.json"

    /// One quarantined library.
    public struct Entry: Sendable, Hashable {
        /// The library's path.
        public var library: String
        /// The file as it was when it was quarantined.
        public var identity: FileIdentity
        /// Why: ``PluginLoadError/Kind/crashed``, ``PluginLoadError/Kind/exited`` or
        /// ``PluginLoadError/Kind/timedOut``.
        public var kind: PluginLoadError.Kind
        /// What happened, completing "it ...": `crashed with SIGSEGV when it was probed`.
        public var reason: String
        /// When, in seconds since the epoch.
        public var since: Int64

        /// Whether the file is still the one that was quarantined, so that it is refused.
        public var isCurrent: Bool { FileIdentity(path: library) == identity }
    }

    public var directory: CacheDirectory

    public init(directory: CacheDirectory) { self.directory = directory }

    /// Every entry, current or not, sorted by library.
    public func entries() -> [Entry] {
        directory.entries(of: Self.fileName).compactMap { library, value in
            guard let identity = value["file"].flatMap(FileIdentity.init(json:)),
                let kind = value["kind"]?.string.flatMap(PluginLoadError.Kind.init(rawValue:)),
                let reason = value["reason"]?.string
            else { return nil }
            let since = value["since"]?.string.flatMap { Int64($0) } ?? 0
            return Entry(library: library, identity: identity, kind: kind, reason: reason, since: since)
        }.sorted { $0.library < $1.library }
    }

    /// The entry that refuses the library at `path` as its file is now (`identity`), if any.
    public func entry(for path: String, identity: FileIdentity?) -> Entry? {
        guard let identity else { return nil }
        return entries().first { $0.library == path && $0.identity == identity }
    }

    /// Quarantines the library at `path` as its file is now.
    ///
    /// - Parameters:
    ///   - kind: Why: ``PluginLoadError/Kind/crashed``, ``PluginLoadError/Kind/exited`` or
    ///     ``PluginLoadError/Kind/timedOut``.
    ///   - reason: What happened and where, completing "it ...": `crashed with SIGSEGV when it was probed`.
    /// - Throws: ``FlowError`` when the quarantine file cannot be written.
    public func add(_ path: String, kind: PluginLoadError.Kind, reason: String) throws(FlowError) {
        guard let identity = FileIdentity(path: path) else { throw FlowError("cannot quarantine \(path): it is gone") }
        try directory.update(Self.fileName) { entries in
            // Entries whose file changed no longer refuse anything.
            entries = entries.filter { library, value in
                value["file"].flatMap(FileIdentity.init(json:)) == FileIdentity(path: library)
            }
            entries[path] = [
                "file": .object(identity.json), "kind": .string(kind.rawValue), "reason": .string(reason),
                "since": .string(String(time(nil))),
            ]
        }
    }

    /// Removes library `path`'s entry, or with `nil` every entry; returns the libraries removed.
    ///
    /// - Throws: ``FlowError`` when the quarantine file cannot be written.
    @discardableResult
    public func clear(_ path: String? = nil) throws(FlowError) -> [String] {
        var removed: [String] = []
        try directory.update(Self.fileName) { entries in
            removed = entries.keys.filter { path == nil || $0 == path }.sorted()
            for library in removed { entries[library] = nil }
        }
        return removed
    }

    /// The refusal of a library that `entry` quarantines.
    func refusal(_ entry: Entry) -> PluginLoadError {
        PluginLoadError(
            file: entry.library, kind: .quarantined,
            message:
                "is quarantined: it \(entry.reason); it stays refused until the file changes, or run `flowhost quarantine clear \(entry.library)`"
        )
    }
}
