import FlowKit
import Glibc

/// The FlowKit a plugin's file says it was built against (``PluginEntry/versionMarker``), read before the
/// library is loaded.
///
/// The header a plugin's entry point returns carries the version too, but a plugin this host cannot run
/// may crash before it returns one. Reading the marker from the file refuses such a plugin, saying what to
/// update, without running any of its code. Plugins built before FlowKit 1.0 carry `FlowKit plugin ABI N`
/// (ABI 5 and 6) or nothing (ABI 4 and older); when one of those crashes while it is probed,
/// ``crashHint(_:)`` says what probably happened.
enum PluginABIMarker {
    /// What the markers of plugins built for FlowKit ABI 5 and 6, before 1.0, begin with.
    static let abiPrefix = "FlowKit plugin ABI "

    /// The FlowKit the marker in `contents` names, or `nil` when they hold none.
    static func flowKit(in contents: [UInt8]) -> PluginFlowKit? {
        if let text = marker(PluginEntry.versionMarkerPrefix, in: contents) {
            return PluginFlowKit.parse(text).map(PluginFlowKit.version)
        }
        if let text = marker(abiPrefix, in: contents) {
            return version(text).map(PluginFlowKit.abi)
        }
        return nil
    }

    /// The ABI version spelled by `digits`, or `nil`.
    private static func version(_ digits: ArraySlice<UInt8>) -> UInt32? {
        var version: UInt32 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            let (product, overflow) = version.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            version = product &+ UInt32(digit - UInt8(ascii: "0"))
        }
        return digits.isEmpty ? nil : version
    }

    /// What follows the first `prefix` in `contents` up to the C string's end (at most 16 bytes); `nil` when
    /// there is no such prefix or no end.
    private static func marker(_ prefix: String, in contents: [UInt8]) -> ArraySlice<UInt8>? {
        let prefix = Array(prefix.utf8)
        guard let start = find(prefix, in: contents) else { return nil }
        let rest = contents[(start + prefix.count)...].prefix(17)
        guard let end = rest.firstIndex(of: 0) else { return nil }
        return rest[..<end]
    }

    /// Throws when `contents`, the bytes of the library at `path`, carry the marker of a FlowKit this host
    /// cannot run (``PluginFlowKit/refusal(host:)``).
    static func check(_ path: String, contents: [UInt8], host: FlowKitVersion = .current) throws(PluginLoadError) {
        guard let refusal = flowKit(in: contents)?.refusal(host: host) else { return }
        throw PluginLoadError(file: path, kind: .abiMismatch, message: refusal)
    }

    /// What to add to the report of a probe that crashed, exited or hung loading `contents`: that the
    /// library links FlowKit but has no version marker, so it was built for a FlowKit older than the marker,
    /// whose layouts this one does not share. `nil` for a library with a marker or without FlowKit.
    static func crashHint(_ contents: [UInt8]) -> String? {
        guard flowKit(in: contents) == nil, find(Array("libFlowKit.so\0".utf8), in: contents) != nil else {
            return nil
        }
        let host = FlowKitVersion.current
        return "; it links FlowKit but carries no version marker, so it was built for FlowKit ABI 4 or older "
            + "(this flowhost has FlowKit \(host)): rebuild the plugin against FlowKit \(host)"
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
