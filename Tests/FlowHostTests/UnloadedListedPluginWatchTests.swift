import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// Under `--watch`, the library of a plugin not loaded yet that a manifest which discovers lists in its
/// `plugins`: its change is said as in a manifest that lists every plugin (``UnloadedPluginWatchTests``),
/// though discovery is read again, and the watch made anew, before the change is checked.
@MainActor
struct UnloadedListedPluginWatchTests {
    @Test func aRebuiltListedLibraryIsSaidThoughDiscoveryIsReadAgainBeforeItIsChecked() async throws {
        let lab = try BrokenListedPluginTests.lab()
        let host = try lab.host()
        let changes = try Self.changes(of: host)
        defer { host.stop() }

        try lab.replaceListed(with: "libGreeterPluginV2.so")
        try await Self.waitFor(changes, count: 1)

        #expect(
            changes.lines == [
                "plugin 'greeter' is not loaded yet: its new library \(lab.listed) will load on first use"
            ])
        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("greeter is \(String(describing: host.registry.status(of: "greeter")))")
        }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 2, "the first use loads the new library")
    }

    /// A build whose probe crashes is said refused; the good build put back is said again, though its bytes
    /// are those the watch knew before the refusal.
    @Test func theBuildKnownBeforeARefusedOneIsSaidAgainWhenItIsBack() async throws {
        let lab = try BrokenListedPluginTests.lab()
        let host = try lab.host()
        let changes = try Self.changes(of: host)
        defer { host.stop() }

        try lab.replaceListed(with: "libGreeterPluginV2.so")
        try await Self.waitFor(changes, count: 1)
        try lab.replaceListed(with: "libBadSegfaultPlugin.so")
        try await Self.waitFor(changes, count: 2)
        try lab.replaceListed(with: "libGreeterPluginV2.so")
        try await Self.waitFor(changes, count: 3)

        #expect(changes.lines.count == 3, "\(changes.lines)")
        #expect(changes.lines.dropFirst().first?.contains("would be refused") == true, "\(changes.lines)")
        #expect(changes.lines.last == changes.lines.first, "\(changes.lines)")
    }
}

// MARK: - Test Helpers

extension UnloadedListedPluginWatchTests {
    /// The lines of the host's ``HostEvent/unloadedLibraryChanged(plugin:file:refusal:)`` events, collected.
    final class Changes {
        var lines: [String] = []
    }

    /// Collects what `host` says of changed libraries of plugins not loaded yet, and starts its watch.
    static func changes(of host: Host) throws -> Changes {
        let changes = Changes()
        host.onEvent = { event in
            if case .unloadedLibraryChanged = event { changes.lines.append(event.description) }
        }
        try host.watch()
        return changes
    }

    /// Waits up to 10 s for `changes` to hold `count` lines; fails the test when they do not.
    static func waitFor(_ changes: Changes, count: Int) async throws {
        for _ in 0..<1000 where changes.lines.count < count { try await Task.sleep(for: .milliseconds(10)) }
        try #require(changes.lines.count >= count, "\(changes.lines)")
    }
}
