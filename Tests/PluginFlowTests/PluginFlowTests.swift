import FlowKit
import FlowKitTesting
import HostSupport
import PluginLoading
import Testing

/// The bundled plugins' own flows, tested with FlowKitTesting as a plugin author would test theirs.
///
/// The plugins are the real libraries from the build directory: linking their code into this test binary
/// as well would put two copies of each plugin (and of its entry symbol) in one process. The harness then
/// routes straight to their managers, with no manifest and no host.
@MainActor
struct PluginFlowTests {
    // MARK: - welcome

    @Test func launchSignedOutShowsTheWelcomeScreenAsRoot() throws {
        let harness = try FlowHarness(plugin: bundled("WelcomePlugin"))
        harness.route("launch", to: "Launch")

        #expect(harness.send("launch") == .handled(manager: "Launch"))
        #expect(harness.top == "welcome")
        #expect(harness.topModule?.actions.map(\.name) == ["getStarted", "signIn"])
    }

    @Test func launchSignedInGoesHomeWhenHomeIsRouted() throws {
        let harness = try FlowHarness(plugin: bundled("WelcomePlugin"))
        harness.route("launch", to: "Launch")
        harness.route("home.show", to: FakeHome.self)
        harness.context = ["user": ["id": "ada", "name": "Ada"]]

        harness.send("launch")

        #expect(harness.presented == ["home"])
    }

    @Test func launchSignedInFallsBackToWelcomeWithoutHome() throws {
        let harness = try FlowHarness(plugin: bundled("WelcomePlugin"))
        harness.route("launch", to: "Launch")
        harness.context = ["user": ["id": "ada", "name": "Ada"]]

        harness.send("launch")

        #expect(harness.unrouted.map(\.name) == ["home.show"])
        #expect(harness.top == "welcome")
    }

    @Test func onboardingWalksThreePagesThenAsksForSignIn() throws {
        let harness = try FlowHarness(plugin: bundled("WelcomePlugin"))
        harness.route("onboarding.show", to: "Onboarding")
        harness.send("onboarding.show")

        try harness.perform("next")
        try harness.perform("next")
        #expect(harness.topModule?.actions.map(\.name).contains("done") == true)
        try harness.perform("done")

        #expect(harness.presented == ["onboardingPage", "onboardingPage", "onboardingPage"])
        #expect(harness.unrouted.map(\.name) == ["auth.signIn"])
        #expect(harness.top == nil, "the tour's pages went with its child coordinator")
    }

    // MARK: - auth

    @Test func signInSetsTheContextClosesTheFormAndAsksForHome() throws {
        let harness = try FlowHarness(plugin: bundled("AuthPlugin"))
        harness.addService(named: "Session")
        harness.route("auth.signIn", to: "SignIn")
        harness.send("auth.signIn", from: "welcome")
        #expect(harness.state.modals == [["signIn"]])

        try harness.perform("submit", payload: ["user": "Grace"])

        #expect(harness.coordinator.context.value(atPath: "user.name") == "Grace")
        #expect(harness.state.modals.isEmpty)
        #expect(harness.unrouted.map(\.name) == ["home.show"])
    }

    @Test func signOutClearsTheUserAndRelaunches() throws {
        let harness = try FlowHarness(plugin: bundled("AuthPlugin"))
        harness.addService(named: "Session")
        harness.route("auth.signIn", to: "SignIn")
        harness.route("auth.signOut", to: "SignOut")
        harness.send("auth.signIn")
        try harness.perform("submit")

        harness.send("auth.signOut", from: "settings")

        #expect(harness.coordinator.context["user"] == nil)
        #expect(harness.unrouted.map(\.name) == ["home.show", "launch"])
    }

    @Test func sessionLocksInTheBackground() throws {
        let harness = try FlowHarness(plugin: bundled("AuthPlugin"))
        harness.addService(named: "Session")
        harness.start()

        harness.lifecycle(.willEnterBackground, .didEnterBackground)
        #expect(harness.coordinator.context["locked"] == true)
        harness.lifecycle(.willEnterForeground, .didBecomeActive)
        #expect(harness.coordinator.context["locked"] == nil)
    }

    // MARK: - catalog

    @Test func itemDetailWaitsForTheStoreThenFailsClearlyForAnUnknownItem() throws {
        let harness = try FlowHarness(plugin: bundled("CatalogPlugin"))
        harness.addService(named: "Store")
        harness.route("catalog.detail", to: "ItemDetail")
        harness.route("home.show", to: "Home")
        harness.route("catalog.list", to: "ItemList")

        #expect(harness.send("catalog.detail", payload: ["id": 2]) == .queued(waitingFor: ["catalog.store"]))
        harness.send("home.show")
        #expect(harness.top == "itemDetail", "loading the store replayed the queued request into the Items tab")
        #expect(harness.topModule?.content["title"] == "Lantern")

        guard case .failed(let error) = harness.send("catalog.detail", payload: ["id": 9]) else {
            Issue.record("an unknown item should fail")
            return
        }
        #expect(error.message == "no item with id 9")
    }

    @Test func creatingAnItemRunsAChildFlowThatFinishes() throws {
        let harness = try FlowHarness(plugin: bundled("CatalogPlugin"))
        harness.addService(named: "Store")
        for (request, manager) in [
            ("home.show", "Home"), ("catalog.list", "ItemList"), ("catalog.create", "CreateItem"),
        ] {
            harness.route(CoordinationRequestName(request), to: manager)
        }
        harness.send("home.show")

        try harness.perform("create")
        #expect(harness.state.modals == [["createItemForm"]])
        try harness.perform("save", payload: ["title": "Tent"])

        #expect(harness.state.modals.isEmpty)
        #expect(harness.topModule?.content["items"]?.array?.last?["title"] == "Tent")
    }

    // MARK: - settings and express

    @Test func settingsShowTheSignedInPersonAndAskForSignOut() throws {
        let harness = try FlowHarness(plugin: bundled("SettingsPlugin"))
        harness.route("settings.show", to: "Settings")
        harness.context = ["user": ["id": "ada", "name": "Ada"]]
        harness.send("settings.show")

        #expect(harness.topModule?.content["user"] == "Ada")
        try harness.perform("signOut")
        #expect(harness.unrouted.map(\.name) == ["auth.signOut"])
    }

    @Test func aboutFollowsTheAnalyticsWhileShownAndStopsWatchingWhenItEnds() throws {
        let harness = try FlowHarness(plugin: bundled("SettingsPlugin"))
        harness.addService(named: "Analytics")
        harness.route("settings.show", to: "Settings")
        harness.route("settings.about", to: "About")
        harness.send("settings.show")
        try harness.perform("about")
        let about = try #require(harness.topModule)
        #expect(about.content["backgroundCount"] == 0)

        harness.lifecycle(LifecycleEvent.background)
        #expect(about.content["backgroundCount"] == 1, "the screen follows the counts")
        try harness.back()
        harness.lifecycle(LifecycleEvent.background)

        #expect(harness.events.contains(.managerEnded("About", reason: .dismissed)))
        #expect(about.content["backgroundCount"] == 1, "the service no longer updates a screen that is gone")
        harness.send("settings.about")
        #expect(harness.topModule?.content["backgroundCount"] == 2)
    }

    @Test func expressCreateNeedsATitleAndAsksTheCatalogToAddIt() throws {
        let harness = try FlowHarness(plugin: bundled("ExpressPlugin"))
        harness.route("catalog.create", to: "ExpressCreate")
        harness.send("catalog.create", from: "itemList")

        #expect(try harness.perform("save") == .failed(FlowError(#"save needs a title: act save {"title": "Tent"}"#)))
        #expect(try harness.perform("save", payload: ["title": "Stove"]) == .unhandled)
        #expect(harness.unrouted.last?.payload == ["title": "Stove"])
    }

    // MARK: - Test Helpers

    /// Stands in for the catalog plugin's home.
    private final class FakeHome: FlowManager {
        override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
            .present(self.module("home"), .root)
        }
    }

    /// The description of the bundled plugin `product`, loaded from the build directory.
    private func bundled(_ product: String) throws -> PluginDescription {
        let directory = try #require(ProcessInfoLite.executableDirectory())
        return try PluginLoader.load(path: "\(directory)/lib\(product).so").description
    }
}
