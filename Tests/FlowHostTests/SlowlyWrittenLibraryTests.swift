import Glibc
import Testing

@testable import FlowHost

/// A rebuild written slowly, in parts over longer than the tries of an incomplete file (``Host/retryDelays``):
/// each write is a change of the file, which takes over the wait. The tries of each change went on on their own,
/// and those of the first gave up while the file still grew: `reload refused: ... is truncated` was said once
/// per change that had waited its time, and a script's `wait reload` failed on the first, although the build then
/// loaded.
@MainActor
struct SlowlyWrittenLibraryTests {
    @Test(.timeLimit(.minutes(20)))
    func aBuildWrittenSlowlyIsSaidOnceWholeAndNeverRefused() async throws {
        let lab = try DropInLab.listingAuth()
        let library = lab.plugins + "/libAuthPlugin.so"
        let host = try lab.hostSignedIn()
        let events = try HostEventCollector(host, watch: false)
        var build = try BuildBeingWritten(at: library)
        host.reloadWhenComplete("auth", landedAt: .now)
        let waited = Host.retryDelays.reduce(.zero, +)
        // Four writes a second apart: the first change's tries end after the third.
        for part in 1...3 {
            try await Task.sleep(for: waited / 2)
            try build.write(upTo: 16 + part * 4_096)
            host.reloadWhenComplete("auth", landedAt: .now)
        }
        #expect(events.lines.isEmpty, "\(events.lines)")

        try build.finish()
        host.reloadWhenComplete("auth", landedAt: .now)
        try await Task.sleep(for: Host.retryDelays[0] * 2)

        #expect(events.lines.count == 1, "\(events.lines)")
        #expect(events.lines.first?.hasPrefix("reloaded plugin 'auth': generation 2 from \(library)") == true)
        #expect(host.stats.refusedReloads == 0)
    }

    /// In a manifest that discovers, a build still being written, then whole but refused by discovery for what it
    /// declares: the refusal, said by discovery, ends the tries of the incomplete write. They went on, opened the
    /// refused build and said it refused a second time, in other words.
    @Test(.timeLimit(.minutes(20)))
    func aWholeBuildDiscoveryRefusesEndsTheTriesOfItsIncompleteWrite() async throws {
        let lab = try DropInLab(members: #""start": ["bye"]"#)
        let library = try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        let v1 = try BuildProducts.bytes(of: "libGreeterPluginV1.so")
        let descriptor = open(library, O_WRONLY | O_TRUNC | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(Glibc.write(descriptor, v1, 16) == 16)
        host.rediscover(changed: library)
        let rest = v1.dropFirst(16)
        try #require(rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == rest.count)

        host.rediscover(changed: library)
        try await Task.sleep(for: Host.retryDelays[0] * 3)

        #expect(events.lines.count == 1, "\(events.lines)")
        #expect(events.lines.first?.contains("no longer declares a route for 'bye'") == true, "\(events.lines)")
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.servingGeneration(of: "greeter") == 1)
    }
}
