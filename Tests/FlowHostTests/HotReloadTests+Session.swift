import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import PluginLoading

// What a reload keeps of a running session: services' state, screens, the open child flows.
extension HotReloadTests {
    @Test func reloadedPluginsServicesAreReplacedAndKeepTheirState() throws {
        let (host, shell) = try startedDemo()
        for command in ["act signIn", #"act submit {"user": "Ada"}"#] { #expect(shell.execute(command).status == .ok) }

        let event = host.reloadPlugin("auth", force: true)

        guard case .pluginReloaded(_, let generation, _, _, let services) = event else {
            throw TestFailure("expected a reload, got \(event)")
        }
        #expect(generation == 2)
        #expect(services == ["auth.Session"])
        #expect(host.coordinator.context["user"]?["name"] == "Ada", "the new session took the old one's state")
        // The new generation's SignOut finds a session of its own generation's type, and signs Ada out.
        #expect(
            host.coordinator.requestCoordination("auth.signOut", from: "settings") == .handled(manager: "auth.SignOut"))
        #expect(host.coordinator.context["user"] == nil)
    }
}

extension HotReloadTests {
    @Test func aReloadReplacesThePreviousGenerationsBackgroundManagersAndKeepsItsScreens() throws {
        let lab = try SwapLab(
            extraRoute: #"{"request": "poll", "plugin": "greeter", "manager": "Poller"}"#)
        let host = try lab.host()
        var ended: [String] = []
        host.onEvent = { event in
            if case .flow(.managerEnded(let name, let reason)) = event { ended.append("\(name): \(reason)") }
        }
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.coordinator.requestCoordination("poll", from: "greeting").isHandled)
        #expect(host.coordinator.activeManagerCount == 2)

        try lab.install("GreeterPluginV2")
        #expect(host.reloadPlugin("greeter").isReloaded)

        #expect(ended == ["greeter.Poller: replaced by a reload"])
        #expect(host.coordinator.activeManagerCount == 1, "the greeting's manager keeps its screen")
        #expect(host.coordinator.requestCoordination("poll", from: "greeting").isHandled)
        try lab.install("GreeterPluginV1")
        #expect(host.reloadPlugin("greeter").isReloaded)
        #expect(ended.count == 2, "the new generation's poller is replaced by the next reload")
        #expect(host.coordinator.router.top?.content["version"] == 1)
    }
}

extension HotReloadTests {
    @Test func anOpenChildFlowsNextRequestRunsTheNewGeneration() throws {
        let (host, shell) = try startedDemo()
        #expect(shell.execute("act getStarted").status == .ok)
        let tour = try #require(host.coordinator.children.last)
        func pageType() throws -> ObjectIdentifier? {
            try tour.mapping[RequestRoute("onboarding.page")]?.resolve().managerTypeID
        }
        let before = try pageType()

        host.reloadPlugin("welcome", force: true)

        let current = try host.registry.manager("OnboardingPage", in: "welcome").resolve().managerTypeID
        #expect(before != current, "a new generation defines its types anew")
        #expect(try pageType() == current, "the open tour's route goes to the new generation")
        #expect(shell.execute("act next").status == .ok)
        #expect(shell.execute("expect content page 2").status == .ok)
    }
}

extension HotReloadTests {
    /// The demo's host, started, with a shell on it; plugins loaded from the build, reloadable.
    func startedDemo() throws -> (Host, HostShell) {
        let manifest = try Manifest.load(path: Repository.path("manifests/demo.json"))
        let host = Host(manifest: manifest, searchPath: PluginSearchPath([BuildProducts.directory]), versioned: true)
        let shell = HostShell(host: host)
        _ = shell.start()
        return (host, shell)
    }
}
