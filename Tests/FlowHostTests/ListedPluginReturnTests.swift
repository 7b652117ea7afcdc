import FlowKit
import FlowManifest
import Glibc
import LineEditing
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import HostSupport
@testable import PluginLoading

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

    @Test func aListedPluginBrokenFromTheStartLoadsOnceItsFileIsFixedUnderWatch() async throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "./libGreeter.so"}"#)
        try lab.writeListed(Array("garbage\n".utf8))
        let host = try lab.host()
        #expect(!host.coordinator.requestCoordination("greet", from: .app).isHandled, "refused from the start")
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.replaceListed(with: "libGreeterPluginV1.so")
        // The manifest written again after the fix: its reload is the next event, unless the fix was seen first.
        try lab.writeManifest(members: #""plugins": {"greeter": "./libGreeter.so"}"#)
        let line = try #require(await events.nextLine())

        #expect(line.hasPrefix("discovered plugin 'greeter' at \(lab.listed): route greet goes live"), "\(line)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.statsLines.contains("  greeter: loaded, 1 image"), "\(host.statsLines)")
    }

    @Test func aListedPluginWhoseLoadFailedIsLoadedAfreshWhenItComesBack() throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "./libGreeter.so"}"#)
        try lab.replaceListed(with: "libGreeterPluginV1.so")
        let host = try lab.host()
        // Broken after its probe, before its first use: the load fails, and the slot keeps the failure.
        try lab.writeListed(Array("garbage\n".utf8))
        #expect(!host.coordinator.requestCoordination("greet", from: .app).isHandled)
        try #require(unlink(lab.listed) == 0)
        host.rediscover()

        try lab.replaceListed(with: "libGreeterPluginV1.so")
        _ = host.rediscover(changed: lab.listed)

        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test(.timeLimit(.minutes(20)))
    func aListedPluginMissingFromTheStartLoadsOnceItsFileIsMadeUnderWatch() async throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "./libGreeter.so"}"#)
        let host = try lab.host()
        #expect(!host.coordinator.requestCoordination("greet", from: .app).isHandled, "refused from the start")
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.replaceListed(with: "libGreeterPluginV1.so")
        let line = try #require(await events.nextLine())

        #expect(line.hasPrefix("discovered plugin 'greeter' at \(lab.listed): route greet goes live"), "\(line)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aListedPluginWhoseLibraryIsDeletedIsSaidRemovedNamingTheServicesThatStopped() throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        try #require(unlink(library) == 0)

        let result = shell.execute("reload manifest")

        #expect(result.status == .ok, "\(result.status)")
        #expect(
            result.lines.contains(
                "plugin 'auth' removed (\(library)): routes auth.signIn, auth.signIn from settings, auth.signOut fail until it is back; stopped services: auth.Session"
            ), "\(result.lines)")
        #expect(!result.lines.contains { $0.hasPrefix("discovery: ") }, "said once: \(result.lines)")
        #expect(host.runningServices.isEmpty)
    }

    /// Its library beside the manifest, in no directory watched whole: its deletion is seen all the same.
    @Test(.timeLimit(.minutes(20)))
    func underWatchAListedPluginWhoseLibraryIsDeletedIsSaidRemoved() async throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try #require(unlink(library) == 0)

        #expect(
            await events.nextDropIn()
                == "removed auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session")
        #expect(host.runningServices.isEmpty)
    }

    @Test func aListedPluginWhoseLibraryIsDeletedIsRemovedForStatsAndReloadToo() throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        try #require(unlink(library) == 0)
        #expect(shell.execute("reload manifest").status == .ok)

        let result = shell.execute("reload auth")

        #expect(
            result.status == .error("plugin 'auth' is removed: its library \(library) was deleted; plugins: none"),
            "\(result.status)")
        #expect(host.statsLines.contains("  auth: removed, 1 image"), "\(host.statsLines)")
    }

    /// Loaded lazily, greeter has not loaded when its library is deleted: it is removed all the same, and
    /// not offered by Tab, as `reload NAME` of it only says why.
    @Test func aListedPluginNeverLoadedWhoseLibraryIsDeletedIsRemovedAsALoadedOneIs() throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "./libGreeter.so"}"#)
        try lab.replaceListed(with: "libGreeterPluginV1.so")
        let host = try lab.host()
        let shell = HostShell(host: host)
        try #require(host.statsLines.contains("  greeter: not loaded, 0 images"), "\(host.statsLines)")
        try #require(unlink(lab.listed) == 0)

        let result = shell.execute("reload manifest")

        #expect(
            result.lines.contains("plugin 'greeter' removed (\(lab.listed)): route greet fails until it is back"),
            "\(result.lines)")
        #expect(!result.lines.contains { $0.hasPrefix("discovery: ") }, "said once: \(result.lines)")
        #expect(host.statsLines.contains("  greeter: removed, 0 images"), "\(host.statsLines)")
        #expect(
            shell.execute("reload greeter").status
                == .error("plugin 'greeter' is removed: its library \(lab.listed) was deleted; plugins: none"))
        #expect(shell.completer.completions(before: "reload ").candidates == ["manifest"])
    }

    @Test func aListedPluginWhoseLibraryIsBackIsNoLongerSaidRemovedWhenItsEditedEntryIsNotFound() throws {
        let good = try BuildProducts.bytes(of: "libAuthPlugin.so")
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: good)
        let host = try lab.host()
        let shell = HostShell(host: host)
        try #require(unlink(library) == 0)
        #expect(shell.execute("reload manifest").status == .ok)
        try #require(
            host.outOfUse("auth")?.reason("auth") == "plugin 'auth' is removed: its library \(library) was deleted")
        _ = try lab.directory.file("libAuth.so", containing: good)
        #expect(shell.execute("reload manifest").status == .ok)
        try #require(host.outOfUse("auth") == nil, "back")

        // Its entry edited (pinned) as its library is deleted again: not found, as an edited entry's problem.
        try #require(unlink(library) == 0)
        try lab.writeManifest(members: Self.auth(pin: SHA256.hex(good)))
        #expect(shell.execute("reload manifest").status == .ok)

        let reason = host.outOfUse("auth")?.reason("auth") ?? ""
        #expect(reason.hasPrefix("plugin 'auth' is refused: "), "\(reason)")
        #expect(host.statsLines.contains("  auth: refused, 1 image"), "\(host.statsLines)")
    }

    @Test func aListedPluginWhoseLibraryWasDeletedIsRefusedOnceItsEntryIsEditedBackToThatFile() throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        try #require(unlink(library) == 0)
        #expect(shell.execute("reload manifest").status == .ok)
        try lab.writeManifest(members: #""plugins": {"auth": "./libAuthTypo.so"}"#)
        #expect(shell.execute("reload manifest").status == .ok)
        try lab.writeManifest(members: #""plugins": {"auth": "./libAuth.so"}"#)

        // An entry edited to a file that is not there is no removal: its problem says it.
        let result = shell.execute("reload manifest")

        #expect(result.lines.contains { $0.hasPrefix("discovery: \(library): ") }, "\(result.lines)")
        let reason = host.outOfUse("auth")?.reason("auth") ?? ""
        #expect(reason.hasPrefix("plugin 'auth' is refused: "), "\(reason)")
        #expect(host.statsLines.contains("  auth: refused, 1 image"), "\(host.statsLines)")
    }

    @Test func aListedPluginDroppedAfterItsLibraryWasDeletedIsRemovedFromTheManifestAndRefusedWhenListedAgain()
        throws
    {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        try #require(unlink(library) == 0)
        #expect(shell.execute("reload manifest").status == .ok)
        try lab.writeManifest(members: "")
        #expect(shell.execute("reload manifest").status == .ok)
        #expect(host.outOfUse("auth")?.reason("auth") == "plugin 'auth' was removed from the manifest")

        try lab.writeManifest(members: #""plugins": {"auth": "./libAuth.so"}"#)
        #expect(shell.execute("reload manifest").status == .ok)

        let reason = host.outOfUse("auth")?.reason("auth") ?? ""
        #expect(reason.hasPrefix("plugin 'auth' is refused: "), "listed again, to a file not there: \(reason)")
        #expect(host.statsLines.contains("  auth: refused, 1 image"), "\(host.statsLines)")
    }

    @Test func aListedPluginFoundByFileNameAndDeletedIsSaidRemovedFromItsPathAndWhereItWasLookedFor() throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "libAuth.so"}"#)
        let directory = lab.directory.path + "/lib"
        try #require(mkdir(directory, 0o755) == 0)
        let library = directory + "/libAuth.so"
        _ = try lab.directory.file("lib/libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = Host(manifest: try lab.manifest(), searchPath: PluginSearchPath([directory]), prober: lab.prober)
        host.start()
        let shell = HostShell(host: host)
        try #require(unlink(library) == 0)

        let result = shell.execute("reload manifest")

        #expect(result.status == .ok, "\(result.status)")
        #expect(
            result.lines.contains(
                "plugin 'auth' removed (\(library)): routes auth.signIn, auth.signIn from settings, auth.signOut fail until it is back; stopped services: auth.Session"
            ), "\(result.lines)")
        #expect(
            result.lines.contains {
                $0.hasPrefix("discovery: libAuth.so: library of plugin 'auth' not found (searched: \(directory))")
            }, "the directories searched: \(result.lines)")
    }

    @Test func aListedPluginsEntryEditedToAPathNotThereIsItsProblemNotARemoval() throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        _ = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        try lab.writeManifest(members: #""plugins": {"auth": "./libAuthTypo.so"}"#)

        let result = shell.execute("reload manifest")

        #expect(!result.lines.contains { $0.contains("removed") }, "\(result.lines)")
        #expect(
            result.lines.contains(
                "discovery: \(lab.directory.path)/libAuthTypo.so: library of plugin 'auth' not found; check the path in the manifest; stopped services: auth.Session"
            ), "\(result.lines)")
        #expect(host.runningServices.isEmpty)
    }

    @Test func aListedPluginRefusedByAPinEditAfterItServedNamesTheServicesThatStopped() throws {
        let good = try BuildProducts.bytes(of: "libAuthPlugin.so")
        let lab = try DropInLab(members: Self.auth(pin: SHA256.hex(good)))
        _ = try lab.directory.file("libAuth.so", containing: good)
        let host = try lab.host()
        let shell = HostShell(host: host)
        try lab.writeManifest(members: Self.auth(pin: String(repeating: "a", count: 64)))

        let result = shell.execute("reload manifest")

        #expect(result.status == .ok, "\(result.status)")
        let problems = result.lines.filter { $0.hasPrefix("discovery: ") }
        #expect(problems.count == 1, "said once: \(result.lines)")
        #expect(problems.first?.hasSuffix("; stopped services: auth.Session") == true, "\(result.lines)")
        #expect(host.runningServices.isEmpty)
    }

    @Test func aListedPluginRefusedForAProblemSaidBeforeStillNamesTheServicesThatStopped() throws {
        let garbage = Array("garbage\n".utf8)
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        // Written over with what cannot be probed, its entry unchanged: a refused reload, the loaded one serves.
        _ = try lab.directory.file("libAuth.so", containing: garbage)
        host.rediscover(changed: library)
        try #require(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        try lab.writeManifest(members: Self.auth(pin: SHA256.hex(garbage)))

        // Its entry edited: refused for the problem its reload was refused for, said before.
        let result = shell.execute("reload manifest")

        #expect(result.status == .ok, "\(result.status)")
        let problems = result.lines.filter { $0.hasPrefix("discovery: ") }
        #expect(problems.count == 1, "said once: \(result.lines)")
        #expect(problems.first?.hasSuffix("; stopped services: auth.Session") == true, "\(result.lines)")
        #expect(host.runningServices.isEmpty)
    }

    // MARK: - Test Helpers

    /// The manifest's members listing `auth` at `./libAuth.so`, pinned to `pin`.
    static func auth(pin: String) -> String {
        #""plugins": {"auth": {"library": "./libAuth.so", "sha256": "\#(pin)"}}"#
    }
}
