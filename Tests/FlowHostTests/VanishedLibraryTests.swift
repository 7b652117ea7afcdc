import FlowManifest
import Glibc
import Testing

@testable import FlowHost

/// Under `--watch`, in a manifest that discovers, a library that vanishes while its plugin is in use: a
/// linker or `cp` replacing it deletes it first, so it is waited for, and back it reloads in place, its
/// services handing their state over; still gone, it is said removed.
///
/// The tests report the watcher's changes to the host themselves (``Host/changed(_:landedAt:)``), in the
/// order a watcher sees them: a watcher's reports would all be taken once the test lets the main actor go,
/// by when the library is back.
@MainActor
struct VanishedLibraryTests {
    @Test func aDiscoveredLibraryDeletedAndWrittenAgainReloadsInPlaceHandingItsServicesOver() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libAuthPlugin.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        defer { host.stop() }

        try lab.remove("libAuthPlugin.so")
        host.changed(library, landedAt: .now)
        #expect(events.lines.isEmpty, "not said removed while it may come back: \(events.lines)")
        try lab.write(try Self.rebuilt("libAuthPlugin.so"), as: "libAuthPlugin.so")
        host.changed(library, landedAt: .now)

        try await Self.expectReloadedInPlace("auth", services: ["auth.Session"], in: events)
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
    }

    @Test func aListedLibraryDeletedAndWrittenAgainReloadsInPlaceHandingItsServicesOver() async throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let events = try HostEventCollector(host)  // the listed library's path is known to a watching host
        defer { host.stop() }

        try #require(unlink(library) == 0)
        host.changed(library, landedAt: .now)
        #expect(events.lines.isEmpty, "not said removed while it may come back: \(events.lines)")
        _ = try lab.directory.file("libAuth.so", containing: try Self.rebuilt("libAuthPlugin.so"))
        host.changed(library, landedAt: .now)

        try await Self.expectReloadedInPlace("auth", services: ["auth.Session"], in: events)
    }

    @Test func aDiscoveredLibraryStillGoneAfterTheWaitIsSaidRemoved() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libAuthPlugin.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        defer { host.stop() }

        try lab.remove("libAuthPlugin.so")
        host.changed(library, landedAt: .now)
        #expect(events.lines.isEmpty, "waited for first: \(events.lines)")

        #expect(
            await events.nextDropIn()
                == "removed auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session")
        #expect(host.runningServices.isEmpty)
    }

    /// Reading discovery while a library is awaited would say it removed: a library dropped in meanwhile is
    /// read once the awaited one is back.
    @Test func aChangeWhileALibraryIsAwaitedIsReadOnceItIsBack() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libAuthPlugin.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        defer { host.stop() }

        try lab.remove("libAuthPlugin.so")
        host.changed(library, landedAt: .now)
        host.changed(try lab.add("libWelcomePlugin.so"), landedAt: .now)
        #expect(events.lines.isEmpty, "held: \(events.lines)")
        try lab.write(try Self.rebuilt("libAuthPlugin.so"), as: "libAuthPlugin.so")
        host.changed(library, landedAt: .now)

        #expect(await events.nextDropIn() == "discovered welcome routes=launch,onboarding.show services=")
        try await Self.expectReloadedInPlace("auth", services: ["auth.Session"], in: events)
    }

    /// A manifest reload while a library is awaited reads discovery: its plugin is kept in use, its services
    /// running, rather than said removed and, back, discovered afresh.
    @Test func aManifestReloadWhileADiscoveredLibraryIsAwaitedKeepsItsPluginForItsReturn() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libAuthPlugin.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        defer { host.stop() }

        try lab.remove("libAuthPlugin.so")
        host.changed(library, landedAt: .now)
        #expect(host.reloadManifest().description.hasPrefix("reloaded manifest"))
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"], "still running")
        try lab.write(try Self.rebuilt("libAuthPlugin.so"), as: "libAuthPlugin.so")
        host.changed(library, landedAt: .now)

        try await Self.expectReloadedInPlace("auth", services: ["auth.Session"], in: events)
    }

    @Test func aDiscoveredLibraryAwaitedThroughAManifestReloadAndStillGoneAfterTheWaitIsSaidRemoved() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libAuthPlugin.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)
        defer { host.stop() }

        try lab.remove("libAuthPlugin.so")
        host.changed(library, landedAt: .now)
        host.reloadManifest()
        #expect(events.lines.allSatisfy { !$0.contains("removed") }, "waited for first: \(events.lines)")

        #expect(
            await events.nextDropIn()
                == "removed auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session")
        #expect(host.runningServices.isEmpty)
    }

    @Test func aManifestReloadWhileAListedLibraryIsAwaitedKeepsItsPluginForItsReturn() async throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try #require(unlink(library) == 0)
        host.changed(library, landedAt: .now)
        #expect(host.reloadManifest().description.hasPrefix("reloaded manifest"))
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"], "still running")
        _ = try lab.directory.file("libAuth.so", containing: try Self.rebuilt("libAuthPlugin.so"))
        host.changed(library, landedAt: .now)

        try await Self.expectReloadedInPlace("auth", services: ["auth.Session"], in: events)
    }

    // MARK: - Test Helpers

    /// The bytes of the built `library` with others after them: a new build, whose reload is not unchanged.
    private static func rebuilt(_ library: String) throws -> [UInt8] {
        try BuildProducts.bytes(of: library) + [UInt8](repeating: 0, count: 16)
    }

    /// Expects the next drop-in event of `events` to be a reload of `plugin` that replaced `services`, each
    /// handed its predecessor's state: not a removal, nor a discovery, which would start them afresh.
    private static func expectReloadedInPlace(
        _ plugin: String, services: [String], in events: HostEventCollector
    ) async throws {
        while let event = await events.next() {
            guard event.dropIn != nil else { continue }
            guard case .pluginReloaded(plugin, let generation, _, _, let replaced) = event else {
                throw TestFailure("not reloaded in place: \(event)")
            }
            #expect(generation == 2)
            #expect(replaced == services)
            return
        }
    }
}
