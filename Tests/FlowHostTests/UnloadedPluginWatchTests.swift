import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// Under `--watch`, a plugin not loaded yet loads on its first request, not because its library was closed
/// after writing with its bytes unchanged (a `touch`, or a descriptor another process inherited and closed).
/// A rebuild of it, with other bytes, still loads it (``HotReloadTests``).
@MainActor
struct UnloadedPluginWatchTests {
    @Test func aLibraryClosedAfterWritingUnchangedDoesNotLoadAPluginNotLoadedYet() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        // Opened for writing and closed, as by a process that inherited the descriptor: IN_CLOSE_WRITE.
        let descriptor = open(lab.library, O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        close(descriptor)
        // The manifest's change is seen after the library's: a reload of the plugin would be said first.
        try lab.writeMark("after the write")
        let event = try #require(await events.next())

        guard case .manifestReloaded = event else { throw TestFailure("the first event is \(event)") }
        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("greeter is \(String(describing: host.registry.status(of: "greeter")))")
        }
        #expect(host.registry.images(of: "greeter") == 0)
        #expect(host.stats.reloads == 0)
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.registry.images(of: "greeter") == 1)
    }

    @Test func aRebuiltLibraryOfAPluginNotLoadedYetIsCheckedAndLoadsOnFirstUse() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.install("GreeterPluginV2")
        let event = try #require(await events.next())

        #expect(
            event.description
                == "plugin 'greeter' is not loaded yet: its new library \(lab.library) will load on first use"
        )
        try Self.expectNotLoaded(host)
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 2, "the first use loads the new library")
        #expect(host.stats.reloads == 0)
    }

    @Test func aChangedLibraryOfAPluginNotLoadedYetThatLoadingWouldRefuseIsSaidRefusedWithoutLoading() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        // A build that others can write: refused by the permission check, before any of its code could run.
        let staging = try lab.directory.file(
            "libGreeter.so.tmp", containing: BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        #expect(chmod(staging, 0o666) == 0)
        #expect(rename(staging, lab.library) == 0)
        let line = try #require(await events.next()).description

        let prefix = "plugin 'greeter' is not loaded yet, and its new library would be refused: "
        #expect(line.hasPrefix(prefix), "\(line)")
        try Self.expectNotLoaded(host)
        #expect(host.stats.refusedReloads == 0, "nothing was reloaded, so no reload was refused")
        guard case .failed(let failure) = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("the first use of an insecure library was not refused")
        }
        #expect(failure.message.contains(line.dropFirst(prefix.count)), "the first use says the same")
    }

    @Test func theSameBytesWrittenAgainAfterAChangeAreNotSaidAgain() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.install("GreeterPluginV2")
        _ = await events.next()
        try lab.install("GreeterPluginV2")
        // The manifest's change is seen after the library's: a line for the library would come first.
        try lab.writeMark("after V2 again")
        let event = try #require(await events.next())

        guard case .manifestReloaded = event else { throw TestFailure("the next event is \(event)") }
        try Self.expectNotLoaded(host)
    }
}

// MARK: - Test Helpers

extension UnloadedPluginWatchTests {
    /// Expects greeter not loaded: no image opened, no reload counted.
    fileprivate static func expectNotLoaded(_ host: Host) throws {
        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("greeter is \(String(describing: host.registry.status(of: "greeter")))")
        }
        #expect(host.registry.images(of: "greeter") == 0)
        #expect(host.stats.reloads == 0)
    }
}
