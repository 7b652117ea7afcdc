import FlowComposition
import FlowKit
import FlowManifest
import PluginLoading
import Testing

@testable import FlowHost
@testable import FlowShell

/// Live drop-in: libraries added to, replaced in and removed from a discovered directory while a host runs.
@MainActor
struct LiveDropInTests {
    /// A host of a new lab, watching its files and directories, and the drop-in events it reports, in order.
    private func watchedHost() throws -> (lab: DropInLab, host: Host, events: HostEventCollector) {
        let lab = try DropInLab()
        let host = try lab.host()
        return (lab, host, try HostEventCollector(host))
    }

    @Test func underWatchALibraryDroppedInGoesLiveAReplacedOneReloadsAndARemovedOneFailsCleanly() async throws {
        let (lab, host, events) = try watchedHost()
        defer { host.stop() }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .unhandled)

        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        #expect(await events.nextDropIn() == "discovered greeter routes=greet services=")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 1)

        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")
        #expect(await events.nextDropIn() == "reloaded greeter 2")
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.coordinator.router.top?.content["version"] == 2)
        #expect(
            host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"),
            "the new generation's declared route went live with it")

        try lab.remove("libGreeter.so")
        #expect(await events.nextDropIn() == "removed greeter routes=greet,bye services=")
        guard case .failed(let error) = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("greet did not fail")
        }
        #expect(
            error.message.hasSuffix(
                "plugin 'greeter' was removed from \(lab.plugins) while flowhost ran; its routes fail until it is back (its image stays loaded)"
            ))
        #expect(host.registry.images(of: "greeter") == 2, "no image was closed")

        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        #expect(await events.nextDropIn() == "discovered greeter routes=greet services=")
        #expect(await events.nextDropIn() == "reloaded greeter 3", "back, from the file that is there now")
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.coordinator.router.top?.content["version"] == 1)
        #expect(host.coordinator.requestCoordination("bye", from: .app) == .unhandled, "V1 declares no bye")
    }

    @Test func underWatchAPluginDroppedInIsReportedOnceNotAlsoAsUnchanged() async throws {
        let (lab, host, events) = try watchedHost()
        defer { host.stop() }

        // Auth starts a service, so discovering it loads it at once.
        try lab.add("libAuthPlugin.so")
        #expect(
            await events.nextDropIn()
                == "discovered auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session")
        // Whatever the first drop-in left to report comes before what the second one reports.
        try lab.add("libWelcomePlugin.so")
        #expect(await events.nextDropIn() == "discovered welcome routes=launch,onboarding.show services=")
    }

    @Test func aWatchedLibraryWrittenAgainUnchangedReportsNothingWhereReloadSaysUnchanged() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        let host = try lab.host()
        var events: [String] = []
        host.onEvent = { event in if let dropIn = event.dropIn { events.append(dropIn) } }

        // What the watcher does when the file is written to again with the same bytes (or touched).
        host.reloadWhenComplete("auth", landedAt: .now)
        #expect(events.isEmpty)

        #expect(host.reloadPlugin("auth").dropIn == "unchanged auth", "a reload asked for says so")
    }

    @Test func aLibraryThatCrashedItsProbeIsReportedOnceNotAgainAsQuarantined() throws {
        let lab = try DropInLab()
        try lab.add("libBadAbortPlugin.so")  // abort: a crash under a sanitizer too, where a SIGSEGV is its report
        let host = try lab.host()
        #expect(host.problems.map(\.kind) == [.crashed])

        try lab.add("libWelcomePlugin.so")
        let events = host.rediscover().compactMap(\.dropIn)

        #expect(events == ["discovered welcome routes=launch,onboarding.show services="])
        #expect(host.composition?.problems.map(\.kind) == [.quarantined], "still refused, said once")
    }

    @Test func aDroppedInPluginStartsItsServicesAndARemovedOneStopsThem() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        let host = try lab.host()
        #expect(host.runningServices.isEmpty)

        try lab.add("libAuthPlugin.so")
        let added = host.rediscover().compactMap(\.dropIn)

        #expect(
            added == ["discovered auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session"]
        )
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session"])
        #expect(host.coordinator.dependencies.contains("auth.session"), "the session started")
        #expect(host.coordinator.requestCoordination("auth.signIn", from: .app) == .handled(manager: "auth.SignIn"))

        try lab.remove("libAuthPlugin.so")
        let removed = host.rediscover().compactMap(\.dropIn)

        #expect(
            removed == ["removed auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session"])
        #expect(host.runningServices.isEmpty)
        #expect(host.coordinator.services.isEmpty)
        #expect(host.coordinator.requestCoordination("launch", from: .app).isHandled, "the others keep working")
    }

    @Test func aRequirementDroppedInLetsTheRefusedPluginRun() throws {
        let lab = try DropInLab()
        try lab.add("libSettingsPlugin.so")
        let host = try lab.host()
        #expect(host.problems.map(\.kind) == [.unmetRequirement])
        guard case .failed = host.coordinator.requestCoordination("settings.show", from: .app) else {
            throw TestFailure("settings.show did not fail")
        }

        try lab.add("libAuthPlugin.so")
        let events = host.rediscover().compactMap(\.dropIn)

        #expect(
            events.sorted() == [
                "discovered auth routes=auth.signIn,auth.signIn from settings,auth.signOut services=auth.Session",
                "discovered settings routes=settings.show,settings.about services=settings.Analytics",
            ])
        #expect(host.runningServices.map(\.ref.reportedName) == ["auth.Session", "settings.Analytics"])
        #expect(host.coordinator.requestCoordination("settings.show", from: .app).isHandled)
    }

    @Test func waitReloadWaitsForAPluginToBeDroppedIn() async throws {
        let lab = try DropInLab()
        let host = try lab.host()
        let shell = HostShell(host: host)
        try host.watch()
        defer { host.stop() }

        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let reply = await shell.perform("wait reload greeter 10")

        #expect(reply.status == .ok)
        #expect(reply.lines.first == "plugin 'greeter': discovered, its routes are live")
        #expect(shell.execute("send greet").status == .ok)
    }
}
