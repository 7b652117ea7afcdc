import LineEditing
import Testing

@testable import FlowHost
@testable import FlowShell

/// The shell's commands on a plugin a manifest edit dropped from `plugins`: its slot outlives it, but
/// `reload` does not load it again, and Tab does not offer it.
@MainActor
struct DroppedPluginShellTests {
    @Test func reloadOfADroppedPluginFailsWithOneLineSayingItWasRemovedFromTheManifest() throws {
        let lab = try DroppedPluginTests.lab()
        let (shell, host) = try Self.shellAfterDroppingGreeter(in: lab)
        defer { withExtendedLifetime(lab) {} }

        let result = shell.execute("reload greeter")

        #expect(
            result.status
                == .error("plugin 'greeter' was removed from the manifest; plugins: welcome"), "\(result.status)")
        #expect(host.registry.images(of: "greeter") == 1, "not loaded again")
    }

    @Test func reloadOfAnUnknownPluginDoesNotNameTheDroppedOnes() throws {
        let lab = try DroppedPluginTests.lab()
        let (shell, _) = try Self.shellAfterDroppingGreeter(in: lab)
        defer { withExtendedLifetime(lab) {} }

        #expect(shell.execute("reload gretter").status == .error("no plugin named 'gretter'; plugins: welcome"))
    }

    @Test func waitReloadOfAnUnknownPluginDoesNotNameTheDroppedOnes() async throws {
        let lab = try DroppedPluginTests.lab()
        let (shell, _) = try Self.shellAfterDroppingGreeter(in: lab)
        defer { withExtendedLifetime(lab) {} }

        let result = await shell.perform("wait reload gretter")

        #expect(result.status == .error("no plugin named 'gretter'; plugins: welcome"), "\(result.status)")
    }

    @Test func reloadAllSkipsADroppedPlugin() throws {
        let lab = try DroppedPluginTests.lab()
        let (shell, host) = try Self.shellAfterDroppingGreeter(in: lab)
        defer { withExtendedLifetime(lab) {} }

        let result = shell.execute("reload")

        #expect(result.status == .ok, "\(result.status)")
        #expect(host.registry.images(of: "greeter") == 1, "not loaded again")
        #expect(host.registry.images(of: "welcome") == 2)
        #expect(!result.lines.contains { $0.contains("greeter") }, "\(result.lines)")
        #expect(host.statsLines.contains("  greeter: removed, 1 image"), "\(host.statsLines)")
    }

    @Test func tabDoesNotOfferADroppedPlugin() throws {
        let lab = try DroppedPluginTests.lab()
        let (shell, _) = try Self.shellAfterDroppingGreeter(in: lab)
        defer { withExtendedLifetime(lab) {} }

        #expect(shell.completer.completions(before: "reload ").candidates == ["manifest", "welcome"])
        #expect(shell.completer.completions(before: "wait reload ").candidates == ["welcome"])
    }

    // MARK: - Test Helpers

    /// A shell on `lab` (a ``DroppedPluginTests/lab()``, kept while the shell is used: it removes its
    /// directory when released) whose greeter served, then was dropped by a manifest edit.
    static func shellAfterDroppingGreeter(in lab: SwapLab) throws -> (HostShell, Host) {
        let host = try lab.host()
        let shell = HostShell(host: host)
        #expect(shell.execute("send launch").status == .ok)
        #expect(shell.execute("send greet").status == .ok)
        try lab.writeManifest(DroppedPluginTests.manifest(greeter: false))
        #expect(shell.execute("reload manifest").status == .ok)
        return (shell, host)
    }
}
