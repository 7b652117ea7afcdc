import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import FlowShell

/// Under `--watch`, a library brought back to the bytes of the generation that serves, after a refused
/// reload of another build, is said (``HostEvent/libraryRestored(plugin:generation:)``): the refusal is no
/// longer the last word on the plugin. Bytes written again with no refusal between stay unsaid, as a `touch`.
@MainActor
struct RestoredLibraryWatchTests {
    @Test func aBuildBackToTheServingGenerationAfterARefusedOneIsSaidOnce() async throws {
        let lab = try SwapLab(
            initial: "GreeterPluginV2", extraRoute: #"{"request": "bye", "plugin": "greeter", "manager": "Farewell"}"#)
        let host = try lab.host()
        host.coordinator.requestCoordination("bye", from: .app)
        let events = try HostEventCollector(host)
        defer { host.stop() }

        // V1 exports no 'Farewell', still routed: refused, though it was opened to find its managers.
        try lab.install("GreeterPluginV1")
        let refused = try #require(await events.next())
        // The manifest's change is seen after the library's: a line for the library would come first.
        try lab.install("GreeterPluginV2")
        try lab.writeMark("V2 back")
        let restored = try #require(await events.nextLine())
        guard restored == Self.restoredLine else { throw TestFailure("the line after the refusal is \(restored)") }
        _ = await events.next()
        // The same bytes again, no refusal between: not said.
        try lab.install("GreeterPluginV2")
        try lab.writeMark("V2 again")
        let after = try #require(await events.next())

        #expect(refused.isRefusal)
        guard case .manifestReloaded = after else { throw TestFailure("the event after is \(after)") }
        #expect(host.registry.servingGeneration(of: "greeter") == 1)
        #expect(host.registry.images(of: "greeter") == 2, "the refused build was opened: an image, never closed")
        #expect(host.stats.reloads == 0)
        #expect(host.stats.refusedReloads == 1)
    }

    @Test func theSameBytesBackAfterAPermissionRefusalAreSaid() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        let events = try HostEventCollector(host)
        defer { host.stop() }

        // The serving bytes, but writable by others: refused before they are opened.
        let staging = try lab.directory.file(
            "libGreeter.so.tmp", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        try #require(chmod(staging, 0o666) == 0)
        try #require(rename(staging, lab.library) == 0)
        let refused = try #require(await events.next())
        try lab.install("GreeterPluginV1")
        // The manifest's change is seen after the library's: a line for the library would come first.
        try lab.writeMark("V1 back")
        let restored = try #require(await events.nextLine())

        #expect(refused.isRefusal, "\(refused)")
        #expect(restored == Self.restoredLine)
        #expect(host.registry.images(of: "greeter") == 1, "a build refused for its permissions is not opened")
    }

    @Test func aWaitEndsWhenTheLibraryIsBackToTheServingBuildAfterARefusal() async throws {
        let lab = try SwapLab(
            initial: "GreeterPluginV2", extraRoute: #"{"request": "bye", "plugin": "greeter", "manager": "Farewell"}"#)
        let shell = HostShell(host: try lab.host())
        try shell.host.watch()
        defer { shell.host.stop() }
        shell.execute("send bye")

        // Each change is handled on the main actor, which the test holds until the wait is pending (as in
        // ``ReloadWaitTests/waitEndsWhenTheWatchedLibraryIsReplacedWhileWaiting()``).
        try lab.install("GreeterPluginV1")
        let refused = await shell.perform("wait reload greeter 20")
        try lab.install("GreeterPluginV2")
        let restored = await shell.perform("wait reload greeter 20")

        guard case .error(let message) = refused.status else { throw TestFailure("the wait ended \(refused)") }
        #expect(message.hasPrefix("waited for plugin 'greeter', but its reload was refused: "), "\(message)")
        #expect(restored.status == .ok)
        #expect(
            restored.lines.first
                == "plugin 'greeter': generation 1 keeps serving; its library is back to the build it was loaded from")
    }

    @Test func aPluginWhoseEntryIsEditedAfterARefusalHasNoRestorationToSay() throws {
        let lab = try SwapLab(
            initial: "GreeterPluginV2", extraRoute: #"{"request": "bye", "plugin": "greeter", "manager": "Farewell"}"#)
        let host = try lab.host()
        host.coordinator.requestCoordination("bye", from: .app)
        var events: [HostEvent] = []
        host.onEvent = { events.append($0) }

        // V1 exports no 'Farewell', still routed: refused.
        try lab.install("GreeterPluginV1")
        host.reloadWhenComplete("greeter", landedAt: .now)
        // An entry naming the same file another way, without 'bye': V1, which exports what is still routed, is
        // reloaded from it as generation 3 (the refused build was opened as the second image).
        try lab.writeManifest(
            #"{"manifestVersion": 1, "plugins": {"greeter": "./libGreeter.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}]}"#
        )
        host.reloadManifest()
        host.coordinator.requestCoordination("greet", from: .app)
        let before = events
        events.removeAll()
        // V1's bytes written again: nothing was refused since they were loaded, so nothing is back.
        try lab.install("GreeterPluginV1")
        host.reloadWhenComplete("greeter", landedAt: .now)

        #expect(before.first?.isRefusal == true, "\(before)")
        #expect(before.contains { $0.isReloaded }, "\(before)")
        #expect(host.registry.servingGeneration(of: "greeter") == 3)
        #expect(events.isEmpty, "\(events)")
    }
}

// MARK: - Test Helpers

extension RestoredLibraryWatchTests {
    /// What the host says of greeter's library back to the bytes of generation 1, which serves.
    fileprivate static let restoredLine =
        "plugin 'greeter': its library is back to the build generation 1 was loaded from; generation 1 keeps serving"
}
