import FlowKit
import HostSupport

/// The registry cache: what probes found, in `registry.json` of the ``CacheDirectory``, so that a library
/// probed once is not probed again until its file changes.
///
/// An entry is keyed by the library's path and holds its ``FileIdentity`` (device, inode, size, mtime) and,
/// when the manifest pins it, the pinned digest; a lookup whose file or pin differs misses, and the next
/// store replaces the entry. Only successful probes are cached: a refusal is quick to find again, and a
/// library that crashed, exited or hung goes to the ``PluginQuarantine`` instead.
package struct ProbeCache: Sendable {
    package static let fileName = "registry.json"
    package var directory: CacheDirectory

    package init(directory: CacheDirectory) { self.directory = directory }

    /// The cached probe of the library at `path`, if it was probed as the file is now (and with `pin`). An
    /// entry without the digest of the bytes probed (written by an older flowhost) misses.
    package func lookup(_ path: String, identity: FileIdentity, pin: String?) -> ProbedPlugin? {
        guard let entry = directory.entries(of: Self.fileName)[path], let stored = entry["file"],
            FileIdentity(json: stored) == identity, entry["digest"]?.string == pin,
            let plugin = entry["plugin"].flatMap({ ProbedPlugin(json: $0, path: path) }), plugin.digest != nil
        else { return nil }
        return plugin
    }

    /// Records a successful probe; a cache that cannot be written is left as it is.
    package func store(_ plugin: ProbedPlugin, identity: FileIdentity, pin: String?) {
        try? directory.update(Self.fileName) { entries in
            entries[plugin.path] = [
                "file": .object(identity.json), "digest": pin.map(JSONValue.string) ?? .null, "plugin": plugin.json,
            ]
        }
    }
}
