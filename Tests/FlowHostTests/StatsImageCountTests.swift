import FlowKit
import HostSupport
import Testing

@testable import FlowHost
@testable import FlowShell

/// `stats` counts every image a plugin has opened, those of the library it was loaded from before its library
/// moved to another file (a manifest edit, a discovered plugin's library of a new name) included: what the cap
/// of images per plugin counts. It counted the current library's alone, `not loaded, 0 images` after the move,
/// while the total said the old images were still mapped.
@MainActor
struct StatsImageCountTests {
    @Test func theImagesOfAPluginsEarlierLibraryStayCounted() throws {
        let lab = try SwapLab()
        _ = try lab.directory.file("libGreeter2.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        #expect(shell.execute("send greet").status == .ok)

        try lab.writeManifest(
            lab.manifest(routes: lab.routes).replacing(#""libGreeter.so""#, with: #""libGreeter2.so""#))
        #expect(shell.execute("reload manifest").status == .ok)

        // The plugin moved to another library is reloaded from it at once: its second image.
        #expect(host.statsLines.contains("  greeter: loaded, 2 images"), "\(host.statsLines)")
        #expect(shell.execute("send greet").status == .ok)
        #expect(host.statsLines.contains("  greeter: loaded, 2 images"), "\(host.statsLines)")
        #expect(host.statsJSON["plugins"]?["greeter"]?["images"] == 2)
    }

    /// A pin edited to bytes other than those that serve gives the plugin a fresh slot, which loads on first
    /// use: its earlier images still count.
    @Test func theImagesOfAPluginsEarlierPinStayCounted() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let shell = HostShell(host: host)
        #expect(shell.execute("send greet").status == .ok)
        try lab.install("GreeterPluginV2")
        let pin = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV2.so"))

        try lab.writeManifest(
            lab.manifest(routes: lab.routes).replacing(
                #""libGreeter.so""#, with: #"{"library": "libGreeter.so", "sha256": "\#(pin)"}"#))
        #expect(shell.execute("reload manifest").status == .ok)

        #expect(host.statsLines.contains("  greeter: not loaded, 1 image"), "\(host.statsLines)")
        #expect(shell.execute("send greet").status == .ok)
        #expect(host.statsLines.contains("  greeter: loaded, 2 images"), "\(host.statsLines)")
    }
}
