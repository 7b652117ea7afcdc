import FlowKit
import Testing

@testable import PluginLoading

/// A plugin's file says which FlowKit it was built against, so that the host can refuse a plugin it cannot
/// run before running any of its code, and explain the crash of one built before the marker.
struct PluginABIMarkerTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theMarkerSpellsThisFlowKitVersion() {
        #expect(PluginEntry.versionMarker.description == PluginEntry.versionMarkerPrefix + "\(FlowKitVersion.current)")
    }

    @Test func everyBundledPluginCarriesThisFlowKitsMarker() throws {
        for library in ["libWelcomePlugin.so", "libCatalogPlugin.so", "libSettingsPlugin.so"] {
            #expect(PluginABIMarker.flowKit(in: try BuildProducts.bytes(of: library)) == .version(.current))
        }
    }

    @Test func theVersionIsWhatEndsTheMarker() {
        let v = { (major: Int, minor: Int) in PluginFlowKit.version(FlowKitVersion(major: major, minor: minor)) }
        #expect(PluginABIMarker.flowKit(in: bytes("xx\0FlowKit plugin version 1.12\0yy")) == v(1, 12))
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin version 2.0\0")) == v(2, 0))
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin version 1\0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin version 1.\0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin version 1.0x\0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin version 1.0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin version 1.99999\0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("xx\0FlowKit plugin ABI 12\0yy")) == .abi(12))
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin ABI 6\0")) == .abi(6))
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin ABI \0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin ABI 7x\0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("FlowKit plugin ABI 99999999999\0")) == nil)
        #expect(PluginABIMarker.flowKit(in: bytes("no marker here")) == nil)
        #expect(PluginABIMarker.flowKit(in: []) == nil)
    }

    @Test func aPluginOfAnOlderOrEqualMinorPassesTheFileCheck() throws {
        let contents = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        let host = FlowKitVersion.current
        try PluginABIMarker.check("libWelcomePlugin.so", contents: contents, host: host)
        try PluginABIMarker.check(
            "libWelcomePlugin.so", contents: contents, host: FlowKitVersion(major: host.major, minor: host.minor + 3))
    }

    @Test func aPluginOfANewerMinorOrAnotherMajorFailsTheFileCheck() throws {
        let contents = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        let current = FlowKitVersion.current
        for host in [FlowKitVersion(major: current.major + 1, minor: 0)]
            + (current.minor > 0 ? [FlowKitVersion(major: current.major, minor: current.minor - 1)] : [])
        {
            let error = #expect(throws: PluginLoadError.self) {
                try PluginABIMarker.check("p.so", contents: contents, host: host)
            }
            #expect(error?.kind == .abiMismatch)
            #expect(
                error?.message.hasPrefix("built against FlowKit \(current), this flowhost has FlowKit \(host); ")
                    == true)
        }
    }

    @Test func aCrashOfAFlowKitLibraryWithoutAMarkerIsExplained() throws {
        let old = bytes("\0libFlowKit.so\0$s7FlowKit17PluginDescription")
        let hint = try #require(PluginABIMarker.crashHint(old))
        let host = FlowKitVersion.current
        #expect(
            hint
                == "; it links FlowKit but carries no version marker, so it was built for FlowKit ABI 4 or older (this flowhost has FlowKit \(host)): rebuild the plugin against FlowKit \(host)"
        )
        #expect(PluginABIMarker.crashHint(old + bytes("FlowKit plugin version \(host)\0")) == nil)
        #expect(PluginABIMarker.crashHint(old + bytes("FlowKit plugin ABI 6\0")) == nil)
        #expect(PluginABIMarker.crashHint(bytes("\0libc.so.6\0")) == nil)
    }
}
