import FlowKit
import Testing

@testable import FlowHost

/// A plugin's file says which FlowKit ABI it was built for, so that the host can refuse a plugin of
/// another ABI before running any of its code, and explain the crash of one built before the marker.
struct PluginABIMarkerTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theMarkerSpellsThisABIVersion() {
        #expect(PluginEntry.abiMarker.description == PluginEntry.abiMarkerPrefix + "\(PluginEntry.abiVersion)")
    }

    @Test func everyBundledPluginCarriesThisABIsMarker() throws {
        for library in ["libWelcomePlugin.so", "libCatalogPlugin.so", "libSettingsPlugin.so"] {
            #expect(PluginABIMarker.version(in: try BuildProducts.bytes(of: library)) == PluginEntry.abiVersion)
        }
    }

    @Test func theVersionIsTheDigitsThatEndTheMarker() {
        #expect(PluginABIMarker.version(in: bytes("xx\0FlowKit plugin ABI 12\0yy")) == 12)
        #expect(PluginABIMarker.version(in: bytes("FlowKit plugin ABI 7\0")) == 7)
        #expect(PluginABIMarker.version(in: bytes("FlowKit plugin ABI \0")) == nil)
        #expect(PluginABIMarker.version(in: bytes("FlowKit plugin ABI 7x\0")) == nil)
        #expect(PluginABIMarker.version(in: bytes("FlowKit plugin ABI 7")) == nil)
        #expect(PluginABIMarker.version(in: bytes("FlowKit plugin ABI 99999999999\0")) == nil)
        #expect(PluginABIMarker.version(in: bytes("no marker here")) == nil)
        #expect(PluginABIMarker.version(in: []) == nil)
    }

    @Test func aCrashOfAFlowKitLibraryWithoutAMarkerIsExplained() throws {
        let old = bytes("\0libFlowKit.so\0$s7FlowKit17PluginDescription")
        let hint = try #require(PluginABIMarker.crashHint(old))
        #expect(
            hint
                == "; it links FlowKit but carries no ABI marker, so it was built for FlowKit ABI 4 or older (this host has \(PluginEntry.abiVersion)): rebuild the plugin against this FlowKit"
        )
        #expect(PluginABIMarker.crashHint(old + bytes("FlowKit plugin ABI \(PluginEntry.abiVersion)\0")) == nil)
        #expect(PluginABIMarker.crashHint(bytes("\0libc.so.6\0")) == nil)
    }
}
