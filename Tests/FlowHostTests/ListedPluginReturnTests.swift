import Glibc
import Testing

@testable import FlowHost
@testable import HostSupport

/// A plugin that a manifest which discovers lists in its `plugins`, refused (its library deleted, or broken
/// from the start) and then back once its file is fixed: as a discovered plugin back, its routes go live
/// and the services it declares start again.
@MainActor
struct ListedPluginReturnTests {
    @Test func aListedPluginBackAfterItsLibraryWasDeletedStartsItsServicesAgain() throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        try #require(unlink(library) == 0)
        host.rediscover()
        #expect(host.runningServices.isEmpty, "refused: its services stop")

        _ = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let events = host.rediscover(changed: library).compactMap(\.dropIn)

        #expect(
            events.first
                == "discovered auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session",
            "\(events)")
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        #expect(host.coordinator.dependencies.contains("auth.session"), "the session started")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app) == .handled(manager: "auth.SignIn"))
    }

    @Test func aListedPluginBackAfterAPinEditRefusedItStartsItsServicesFromTheFileNowThere() throws {
        let good = try BuildProducts.bytes(of: "libAuthPlugin.so")
        let lab = try DropInLab(members: Self.auth(pin: SHA256.hex(good)))
        let library = try lab.directory.file("libAuth.so", containing: good)
        let host = try lab.host()
        _ = try lab.directory.file("libAuth.so", containing: Array("garbage\n".utf8))
        try lab.writeManifest(members: Self.auth(pin: String(repeating: "a", count: 64)))
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }
        #expect(host.runningServices.isEmpty, "refused: its services stop")

        try lab.writeManifest(members: Self.auth(pin: SHA256.hex(good)))
        _ = try lab.directory.file("libAuth.so", containing: good)
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }

        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app) == .handled(manager: "auth.SignIn"))
        #expect(host.registry.images(of: "auth") == 1, "the fresh slot's one image: \(library)")
    }

    // MARK: - Test Helpers

    /// The manifest's members listing `auth` at `./libAuth.so`, pinned to `pin`.
    static func auth(pin: String) -> String {
        #""plugins": {"auth": {"library": "./libAuth.so", "sha256": "\#(pin)"}}"#
    }
}
