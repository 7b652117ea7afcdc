import FlowComposition
import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import HostSupport

/// A plugin that a manifest which discovers lists in its `plugins`, whose library is written over while the
/// host runs with a file that cannot be probed: as a discovered plugin's, its loaded generation keeps serving
/// (a refused reload) until the file is fixed, for as long as the manifest's entry for it, library and
/// `sha256`, is the one it was loaded under. A pin edit loads it afresh from its file.
@MainActor
struct BrokenListedPluginTests {
    @Test func garbageOverAListedPluginIsARefusedReloadAndItKeepsServingPastTheNextRediscovery() async throws {
        let lab = try Self.lab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))

        try lab.writeListed(Array("garbage\n".utf8))
        let refusal = try #require(await events.nextLine())
        #expect(refusal.hasPrefix("reload refused: \(lab.listed): not an ELF shared object"), "\(refusal)")
        #expect(!refusal.contains("\n"))

        try lab.add("libWelcomePlugin.so")  // the next rediscovery
        let discovered = try #require(await events.nextLine())
        #expect(discovered.hasPrefix("discovered plugin 'welcome'"), "nothing more of greeter: \(discovered)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 1, "the loaded generation serves")
        #expect(host.composition?.plugin(named: "greeter")?.isActive == true)
        #expect(host.statsLines.contains("  greeter: loaded, 1 image"), "\(host.statsLines)")

        try lab.replaceListed(with: "libGreeterPluginV2.so")
        let reload = try #require(await events.nextLine())
        #expect(reload.hasPrefix("reloaded plugin 'greeter': generation 2 from \(lab.listed)"), "\(reload)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 2)
        #expect(host.coordinator.requestCoordination("bye", from: .app).isHandled, "its new declarations count")
    }

    @Test func aListedLibraryWhoseProbeCrashesIsARefusedReloadAndIsNotOpened() throws {
        let lab = try Self.lab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.writeListed(try BuildProducts.bytes(of: "libBadAbortPlugin.so"))
        let lines = host.rediscover(changed: lab.listed).map(\.description)

        #expect(lines.count == 1, "one line: \(lines)")
        #expect(lines.first?.hasPrefix("reload refused: \(lab.listed): ") == true, "\(lines)")
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.images(of: "greeter") == 1, "not opened in the host")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aBrokenListedLibraryFoundByAManifestReloadIsAProblemAndTheLoadedGenerationServes() throws {
        let lab = try Self.lab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host, watch: false)

        try lab.writeListed(Array("garbage\n".utf8))
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }

        #expect(events.lines.count == 2, "\(events.lines)")
        #expect(
            events.lines.last?.hasPrefix("discovery: \(lab.listed): not an ELF shared object") == true,
            "\(events.lines)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.composition?.sources[.init("greet", from: nil)] == .plugin("greeter"), "still routed")
    }

    @Test func aListedLibraryDeletedIsRefusedAndItsRoutesFail() throws {
        let lab = try Self.lab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try #require(unlink(lab.listed) == 0)
        host.rediscover()

        guard case .failed(let error) = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("greet did not fail with its library gone")
        }
        #expect(error.message.contains("not found"), "\(error.message)")
        #expect(host.statsLines.contains("  greeter: removed, 1 image"), "as its event says: \(host.statsLines)")
    }

    // MARK: - Pins

    @Test func aPinnedListedPluginKeepsServingThroughABrokenOrUnpinnedFileWhileItsPinIsUnchanged() throws {
        let v1 = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let lab = try Self.lab(pin: v1)
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.writeListed(try BuildProducts.bytes(of: "libBadAbortPlugin.so"))
        let broken = host.rediscover(changed: lab.listed).map(\.description)
        try lab.writeListed(try BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        let unpinned = host.rediscover(changed: lab.listed).map(\.description)
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }

        #expect(broken.count == 1 && broken.first?.hasPrefix("reload refused: \(lab.listed): ") == true, "\(broken)")
        #expect(unpinned.count == 1, "\(unpinned)")
        #expect(
            unpinned.first?.hasPrefix("reload refused: \(lab.listed): sha256 is ") == true,
            "a build the pin does not name is refused as a broken file is: \(unpinned)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 1, "the generation the pin names serves")
        #expect(host.registry.images(of: "greeter") == 1)
    }

    @Test func aPinEditTheLoadedGenerationDoesNotMeetStopsItServingWhileItsFileIsBroken() throws {
        let v1 = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let v2 = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        let lab = try Self.lab(pin: v1)
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        try lab.writeListed(Array("garbage\n".utf8))
        #expect(host.rediscover().count == 1, "said once")

        try lab.writeManifest(members: Self.members(pin: v2))
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }

        guard case .failed(let error) = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("the generation the old pin named still serves")
        }
        #expect(error.message.hasPrefix("\(lab.listed): "), "\(error.message)")
        #expect(!error.message.contains("\n"))
        #expect(host.statsLines.contains("  greeter: refused, 1 image"), "\(host.statsLines)")
        #expect(host.statsJSON["reloads"]?["oldImagesMapped"] == 1, "its image no longer serves")

        try lab.replaceListed(with: "libGreeterPluginV2.so")
        host.rediscover(changed: lab.listed)
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 2, "the build the new pin names")
    }

    @Test func aPinEditLoadsThePluginAfreshFromItsFileEvenWhenTheLoadedGenerationMeetsIt() throws {
        // The decision (manifests/README.md, "Reloading while running"): a pin is checked on the bytes a load
        // reads. An edit of the plugin's entry loads it again from its file, as in a manifest without
        // `discover`; a generation loaded under another entry is not vouched for again.
        let v1 = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let lab = try Self.lab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        try lab.writeListed(Array("garbage\n".utf8))
        host.rediscover()

        try lab.writeManifest(members: Self.members(pin: v1))
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }

        guard case .failed(let error) = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("a generation loaded without the pin still serves")
        }
        #expect(error.message.hasPrefix("\(lab.listed): "), "\(error.message)")
        try lab.replaceListed(with: "libGreeterPluginV1.so")
        host.rediscover(changed: lab.listed)
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func withoutDiscoverAPinEditAlsoLoadsThePluginAfreshFromItsFile() throws {
        let v1 = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let lab = try SwapLab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        try lab.write(Array("garbage\n".utf8))
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled, "an unchanged entry serves")

        try lab.writeManifest(
            #"{"manifestVersion": 1, "plugins": {"greeter": {"library": "libGreeter.so", "sha256": "\#(v1)"}}, "#
                + #""pluginPath": ["."], "routes": [\#(lab.routes)]}"#)
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }

        guard case .failed(let error) = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("a generation loaded without the pin still serves")
        }
        #expect(error.message.hasPrefix("\(lab.library): "), "\(error.message)")
    }

    // MARK: - Test Helpers

    /// A lab whose manifest discovers `plugins.d` (empty) and lists `greeter` at `./libGreeter.so`, a copy of
    /// its first generation, pinned to `pin` when given.
    static func lab(pin: String? = nil) throws -> DropInLab {
        let lab = try DropInLab(members: members(pin: pin))
        _ = try lab.directory.file("libGreeter.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        return lab
    }

    static func members(pin: String?) -> String {
        let entry = pin.map { #"{"library": "./libGreeter.so", "sha256": "\#($0)"}"# } ?? #""./libGreeter.so""#
        return #""plugins": {"greeter": \#(entry)}"#
    }
}

extension DropInLab {
    /// The listed plugin's library, beside the manifest.
    var listed: String { directory.path + "/libGreeter.so" }

    /// Writes `bytes` over the listed library in place, as `cp` would.
    func writeListed(_ bytes: [UInt8]) throws {
        _ = try directory.file("libGreeter.so", containing: bytes)
    }

    /// Puts a copy of the built `library` in place of the listed one as a linker does: written beside, renamed
    /// over.
    func replaceListed(with library: String) throws {
        let staging = try directory.file(".libGreeter.so.tmp", containing: try BuildProducts.bytes(of: library))
        try #require(rename(staging, listed) == 0)
    }
}
