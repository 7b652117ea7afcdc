import Glibc
import Testing

@testable import FlowHost
@testable import FlowShell

/// `wait reload PLUGIN` of a plugin not loaded yet: a change to its library loads nothing, and the wait ends
/// with what the watch found, rather than waiting out its time for a generation that does not come.
extension ReloadWaitTests {
    @Test func waitForAPluginNotLoadedYetEndsWhenItsLibraryChangesAndLoadsNothing() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        try shell.host.watch()
        defer { shell.host.stop() }

        // Handled on the main actor, which the test holds until the wait is pending (as in
        // ``waitEndsWhenTheWatchedLibraryIsReplacedWhileWaiting()``).
        try lab.install("GreeterPluginV2")
        let reply = await shell.perform("wait reload greeter 20")

        #expect(reply.status == .ok)
        #expect(reply.lines.first == "plugin 'greeter': not loaded yet; its new library will load on first use")
        #expect(shell.host.registry.images(of: "greeter") == 0)
    }

    @Test func waitForAPluginNotLoadedYetFailsWithTheRefusalItsNewLibraryWouldMeet() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        try shell.host.watch()
        defer { shell.host.stop() }

        let staging = try lab.directory.file(
            "libGreeter.so.tmp", containing: BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        try #require(chmod(staging, 0o666) == 0)
        try #require(rename(staging, lab.library) == 0)
        let reply = await shell.perform("wait reload greeter 20")

        guard case .error(let message) = reply.status else { throw TestFailure("the wait ended \(reply.status)") }
        #expect(
            message.hasPrefix(
                "waited for plugin 'greeter', not loaded yet, but its new library would be refused: \(lab.library): "),
            "\(message)")
        #expect(shell.host.stats.refusedReloads == 0)
    }

    /// The refusal a not-loaded plugin's new library would meet, printed between commands before a wait for
    /// the plugin began: the wait points to that line rather than saying the refusal again, as it does a
    /// refused reload's.
    @Test func aWouldBeRefusedLinePrintedBeforeTheWaitIsPointedToNotSaidAgain() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        let unprompted = PrintedLines()
        shell.onUnpromptedLines = { unprompted.lines += $0 }
        let staging = try lab.directory.file(
            "libGreeter.so.tmp", containing: BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        try #require(chmod(staging, 0o666) == 0)
        try #require(rename(staging, lab.library) == 0)
        shell.host.reloadWhenComplete("greeter", landedAt: .now)  // as the watch takes the change

        let reply = await shell.perform("wait reload greeter 20")

        #expect(unprompted.lines.count == 1, "\(unprompted.lines)")
        #expect(
            unprompted.lines.first?.hasPrefix(
                "plugin 'greeter' is not loaded yet, and its new library would be refused: \(lab.library): ") == true)
        #expect(
            reply.status
                == .error(
                    "waited for plugin 'greeter', not loaded yet, but its new library would be refused before the wait began; the line above says why"
                ))
    }
}
