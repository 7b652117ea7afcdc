import FlowKit
import Glibc

/// The FlowKit ABI a plugin's file says it was built for (``PluginEntry/abiMarker``), read before the
/// library is loaded.
///
/// The header a plugin's entry point returns carries its ABI version too, but a plugin built for another
/// ABI can crash before it returns one: its entry point builds a ``PluginDescription`` laid out for the
/// FlowKit it was compiled against and hands it to this one. Reading the marker from the file refuses such
/// a plugin with the version it was built for, without running any of its code. Plugins built before the
/// marker existed (ABI 4 and older) have none; when one crashes while it is probed, ``crashHint(_:)`` says
/// what probably happened.
enum PluginABIMarker {
    /// The ABI version in the marker `contents` hold, or `nil` when they hold none.
    static func version(in contents: [UInt8]) -> UInt32? {
        let prefix = Array(PluginEntry.abiMarkerPrefix.utf8)
        guard let start = find(prefix, in: contents) else { return nil }
        var version: UInt32 = 0
        var index = start + prefix.count
        while index < contents.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(contents[index]) {
            let (product, overflow) = version.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            version = product &+ UInt32(contents[index] - UInt8(ascii: "0"))
            index += 1
        }
        // The marker is a C string: its digits end it.
        guard index > start + prefix.count, index < contents.count, contents[index] == 0 else { return nil }
        return version
    }

    /// Throws when `contents`, the bytes of the library at `path`, carry the marker of another ABI.
    static func check(_ path: String, contents: [UInt8], hostABI: UInt32 = PluginEntry.abiVersion)
        throws(PluginLoadError)
    {
        guard let version = version(in: contents), version != hostABI else { return }
        throw PluginLoadError(
            file: path, kind: .abiMismatch,
            message: "built for FlowKit ABI \(version), host has \(hostABI); rebuild the plugin against this FlowKit")
    }

    /// What to add to the report of a probe that crashed, exited or hung loading `contents`: that the
    /// library links FlowKit but has no ABI marker, so it was built for a FlowKit older than the marker,
    /// whose layouts this one does not share. `nil` for a library with a marker or without FlowKit.
    static func crashHint(_ contents: [UInt8]) -> String? {
        guard version(in: contents) == nil, find(Array("libFlowKit.so\0".utf8), in: contents) != nil else {
            return nil
        }
        return "; it links FlowKit but carries no ABI marker, so it was built for FlowKit ABI 4 or older "
            + "(this host has \(PluginEntry.abiVersion)): rebuild the plugin against this FlowKit"
    }

    /// Where `needle` (not empty) first occurs in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pattern in
                guard let hayBase = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                let first = Int32(pattern[0])
                var offset = 0
                while hay.count - offset >= pattern.count {
                    guard let found = memchr(hayBase + offset, first, hay.count - offset - pattern.count + 1) else {
                        return nil
                    }
                    let at = hayBase.distance(to: UnsafeRawPointer(found))
                    if memcmp(hayBase + at, patternBase, pattern.count) == 0 { return at }
                    offset = at + 1
                }
                return nil
            }
        }
    }
}
