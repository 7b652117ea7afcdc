import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import HostSupport

/// A plugin that an edit of a manifest without `discover` drops from its `plugins`, while the host watches:
/// its slot outlives it (an image cannot be unloaded), but `stats` says it is removed, counts its images as
/// old ones still mapped, and a change to its library loads nothing.
@MainActor
struct DroppedPluginTests {
    @Test func statsSaysAPluginAManifestEditDroppedIsRemovedAndCountsItsImageAsOld() async throws {
        let lab = try Self.lab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.statsLines.contains("  greeter: loaded, 1 image"), "\(host.statsLines)")

        try lab.writeManifest(Self.manifest(greeter: false))
        guard case .manifestReloaded? = await events.next() else { throw TestFailure("the edit was not reloaded") }

        #expect(host.statsLines.contains("  greeter: removed, 1 image"), "\(host.statsLines)")
        #expect(
            host.statsLines.contains {
                $0.hasPrefix("plugins: 0 reloads, 0 refused, 1 image no longer serving, still mapped")
            },
            "\(host.statsLines)")
        #expect(host.statsJSON["plugins"]?["greeter"] == ["status": "removed", "images": 1])
        #expect(host.statsJSON["reloads"]?["oldImagesMapped"] == 1)
        #expect(host.statsJSON["plugins"]?["welcome"]?["status"] == "notLoaded", "the plugin it keeps, unused")
    }

    @Test func aPluginAManifestEditDropsAndAddsBackIsLoadedAgainWithNoOldImage() throws {
        let lab = try Self.lab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.writeManifest(Self.manifest(greeter: false))
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the edit was refused") }
        try lab.writeManifest(Self.manifest(greeter: true))
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the edit was refused") }

        #expect(host.statsLines.contains("  greeter: loaded, 1 image"), "\(host.statsLines)")
        #expect(host.registry.leakedImages == 0, "its one image serves again")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aDroppedPluginsLibraryRebuiltWhileWatchedLoadsNothing() async throws {
        let lab = try Self.lab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        try lab.writeManifest(Self.manifest(greeter: false))
        guard case .manifestReloaded? = await events.next() else { throw TestFailure("the edit was not reloaded") }

        try lab.install("GreeterPluginV2")
        // The manifest edited again after the rebuild: its reload is the next event, unless the rebuild
        // reloaded the plugin the manifest no longer has first.
        try lab.writeManifest(Self.manifest(greeter: false, name: "after the rebuild"))
        let event = try #require(await events.next())

        guard case .manifestReloaded = event else { throw TestFailure("expected the manifest's reload, got \(event)") }
        #expect(host.registry.images(of: "greeter") == 1)
        #expect(host.statsLines.contains("  greeter: removed, 1 image"), "\(host.statsLines)")
    }

    @Test func inAManifestThatDiscoversAListedPluginAnEditDropsIsRemovedToo() throws {
        let lab = try BrokenListedPluginTests.lab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.writeManifest(members: "")
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the edit was refused") }

        #expect(host.statsLines.contains("  greeter: removed, 1 image"), "\(host.statsLines)")
        #expect(host.statsJSON["reloads"]?["oldImagesMapped"] == 1)
    }

    // MARK: - Test Helpers

    /// A ``SwapLab`` with the welcome plugin beside the greeter, and a manifest that has both.
    static func lab() throws -> SwapLab {
        let lab = try SwapLab()
        _ = try lab.directory.file(
            "libWelcomePlugin.so", containing: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        try lab.writeManifest(manifest(greeter: true))
        return lab
    }

    /// The lab's manifest with the welcome plugin, and `greeter` when asked; named `name`, if given, which
    /// routes nothing differently.
    static func manifest(greeter: Bool, name: String? = nil) -> String {
        let plugins =
            #""welcome": "libWelcomePlugin.so""# + (greeter ? #", "greeter": "libGreeter.so""# : "")
        let routes =
            #"{"request": "launch", "plugin": "welcome", "manager": "Launch"}"#
            + (greeter ? #", {"request": "greet", "plugin": "greeter", "manager": "Greeter"}"# : "")
        let named = name.map { #""name": "\#($0)", "# } ?? ""
        return #"{"manifestVersion": 1, \#(named)"plugins": {\#(plugins)}, "pluginPath": ["."], "#
            + #""routes": [\#(routes)]}"#
    }
}
