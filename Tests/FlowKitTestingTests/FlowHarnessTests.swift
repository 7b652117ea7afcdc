import FlowKit
import FlowKitTesting
import Testing

@MainActor
struct FlowHarnessTests {
    // MARK: - Routing

    @Test func routesByRequestAndByModuleAndRequest() {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        harness.route("screen.show", from: "settings", to: ManagerFactory("FromSettings", ShowManager.self))
        harness.route("list.show", to: ShowManager.self)

        #expect(harness.send("screen.show", from: "welcome") == .handled(manager: "Show"))
        #expect(harness.send("screen.show", from: "settings") == .handled(manager: "FromSettings"))
        #expect(harness.send("list.show") == .handled(manager: "ShowManager"))
    }

    @Test func unroutedRequestsAreRecordedWithTheirSender() throws {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        harness.send("screen.show", payload: ["module": "home"])

        let outcome = try harness.perform("next", payload: ["id": 7])

        #expect(outcome == .unhandled)
        #expect(harness.unrouted.map(\.name) == ["next.show"])
        #expect(harness.unrouted == [UnroutedRequest("next.show", payload: ["id": 7], from: "home")])
        #expect(harness.unrouted.first?.description == #"next.show {"id":7} from home"#)
    }

    @Test func presentedListsEveryModuleEverPresentedInOrder() throws {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        harness.send("screen.show", payload: ["module": "first"])
        harness.send("screen.show", from: "first", payload: ["module": "second"])

        try harness.back()

        #expect(harness.presented == ["first", "second"])
        #expect(harness.state == PresentationState(stack: ["first"], top: "first"))
        #expect(harness.events.contains(.removed("second")))
    }

    // MARK: - Actions

    @Test func performActsOnTheVisibleModule() throws {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        harness.send("screen.show", payload: ["module": "first"])
        harness.send("screen.show", from: "first", payload: ["module": "second"])

        let outcome = try harness.perform("close")

        #expect(outcome == nil, "closing requests no coordination")
        #expect(harness.top == "first")
        #expect(harness.topModule?.title == "first")
    }

    @Test func unknownActionAndEmptyPresentationFailWithClearMessages() {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")

        #expect(throws: FlowError("nothing is presented: no module to perform 'next' on")) {
            try harness.perform("next")
        }
        harness.send("screen.show", payload: ["module": "home"])
        #expect(throws: FlowError("module 'home' has no action 'fly' (it has: next, close)")) {
            try harness.perform("fly")
        }
    }

    // MARK: - Setup mistakes

    @Test func routingToAManagerThePluginDoesNotExportRecordsAnIssueAndFails() {
        let harness = FlowHarness(plugin: testPlugin)
        let message = "no plugin exports a manager 'SignUp'; 'test' exports: Show, Store"

        withKnownIssue {
            harness.route("auth.signUp", to: "SignUp")
        } matching: { issue in
            issue.comments.map(\.rawValue) == [message]
        }

        #expect(harness.send("auth.signUp") == .failed(FlowError(message)))
    }

    @Test func namingAServiceThePluginDoesNotExportRecordsAnIssue() {
        let harness = FlowHarness(plugins: [testPlugin, PluginDescription(name: "empty", version: "1", managers: [])])

        withKnownIssue {
            #expect(harness.addService(named: "Sesion") == nil)
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "no plugin exports a service 'Sesion'; 'test' exports: Recorder; 'empty' exports: none"
            ]
        }
    }

    @Test func aHarnessWithoutPluginsSaysHowToGiveItOne() {
        let harness = FlowHarness()

        withKnownIssue {
            harness.route("screen.show", to: "Show")
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "no plugin exports a manager 'Show': the harness has no plugin description; make it with FlowHarness(plugin:)"
            ]
        }
    }

    // MARK: - Context and dependencies

    @Test func managersSeeTheContextSetOnTheHarness() {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        harness.context = ["user": ["name": "Ada"]]

        harness.send("screen.show")

        #expect(harness.topModule?.content["context"]?["user"]?["name"] == "Ada")
        #expect(harness.coordinator.context["user"] == ["name": "Ada"])
    }

    @Test func contextComesFromAProviderServiceUnlessTheTestSetsIt() {
        let harness = FlowHarness(plugin: testPlugin)
        harness.addService(ContextService())
        harness.start()

        #expect(harness.context == ["user": "grace"])
        harness.context = ["user": "ada"]
        #expect(harness.coordinator.context == CoordinatorContext(["user": "ada"]))
    }

    @Test func requestsQueueUntilTheirDependencyIsSet() {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("stored.show", to: "Store")

        #expect(harness.send("stored.show", from: "list") == .queued(waitingFor: ["store"]))
        #expect(harness.top == nil)
        // An action tried meanwhile says why nothing is there.
        #expect(
            throws: FlowError(
                "nothing is presented: no module to perform 'next' on; stored.show waits for dependencies (queued): start services that set them with `await startAndWait()`, or set them with `setDependency`"
            )
        ) { try harness.perform("next") }

        harness.setDependency("store", "ready")

        #expect(harness.top == "stored")
        #expect(harness.topModule?.content == ["store": "ready"])
        #expect(harness.events.contains(.replaying(CoordinationRequest("stored.show"), from: "list")))
    }

    // MARK: - Services and lifecycle

    @Test func servicesStartInOrderOnFirstSendAndStopInReverse() throws {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        let first = RecordingService()
        harness.addService(first)
        let second = try #require(harness.addService(named: "Recorder") as? RecordingService)
        #expect(first.entries.isEmpty, "nothing starts before the first send")

        harness.send("screen.show")
        harness.send("screen.show")
        harness.stop()

        #expect(first.entries == ["start", "stop"])
        #expect(second.entries == ["start", "stop"])
        #expect(
            harness.events.filter(\.isServiceEvent) == [
                .serviceStarted("RecordingService"), .serviceStarted("RecordingService"),
                .serviceStopped("RecordingService"), .serviceStopped("RecordingService"),
            ])
    }

    @Test func aServiceAddedWhileRunningStartsAtOnce() {
        let harness = FlowHarness()
        harness.start()
        let late = RecordingService()

        harness.addService(late)

        #expect(late.entries == ["start"])
        #expect(harness.events == [.serviceStarted("RecordingService")])
    }

    @Test func lifecycleEventsReachTheServicesInOrder() {
        let harness = FlowHarness()
        let service = RecordingService()
        harness.addService(service)
        harness.start()

        harness.lifecycle(LifecycleEvent.background)
        harness.lifecycle(.willEnterForeground, .didBecomeActive)

        #expect(
            service.entries == [
                "start", "willEnterBackground", "didEnterBackground", "willEnterForeground", "didBecomeActive",
            ])
    }

    // MARK: - Navigation

    @Test func backDismissAndSelectTabActOnThePresentation() throws {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        harness.send("screen.show", payload: ["module": "items", "style": "tab:Items"])
        harness.send("screen.show", payload: ["module": "profile", "style": "tab:Profile"])
        harness.send("screen.show", payload: ["module": "sheet", "style": "modal"])

        try harness.selectTab(1)
        #expect(harness.top == "sheet", "the modal stays on top")
        try harness.dismiss()
        #expect(harness.top == "profile")
        #expect(harness.state.modals.isEmpty)
        #expect(harness.state.selectedTab == 1)

        #expect(throws: FlowError("no tab 2: there are 2 tabs")) { try harness.selectTab(2) }
        #expect(throws: FlowError("nothing to dismiss: no modal is presented")) { try harness.dismiss() }
        #expect(throws: FlowError("nothing to go back to: 'profile' is the first screen")) { try harness.back() }
    }
}

extension FlowHarnessTests {
    // MARK: - Deep links and going back

    @Test func urlsMapToDeepLinksWhoseStepsComeFromTheVisibleModule() throws {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        harness.deepLink(
            "test://screens/{name}",
            to: [
                CoordinationRequest("screen.show", payload: ["module": "list"]),
                CoordinationRequest("screen.show", payload: ["module": "{name}"]),
            ])

        let result = try harness.open(url: "test://screens/detail")

        #expect(result.isComplete)
        #expect(harness.state.stack == ["list", "detail"])
        #expect(throws: FlowError("no deep link matches 'test://screen/x'; nearest pattern: 'test://screens/{name}'")) {
            try harness.open(url: "test://screen/x")
        }
    }

    /// A URL only a declared link matches: the harness installs none, and says which and how to map it rather
    /// than "no deep link patterns are declared".
    @Test func aURLOnlyADeclaredLinkMatchesNamesItAndTheLoopThatMapsIt() throws {
        var plugin = testPlugin
        plugin.deepLinks = [DeclaredDeepLink("test://screens/{name}", opens: [CoordinationRequest("screen.show")])]
        let harness = FlowHarness(plugin: plugin)

        #expect(
            throws: FlowError(
                "no deep link matches 'test://screens/x'; plugin 'test' declares"
                    + " 'test://screens/{name}', which this harness does not map: map the links it declares with"
                    + " deepLink(_:to:) (for link in plugin.deepLinks { harness.deepLink(link.pattern, to:"
                    + " link.requests) })")
        ) { try harness.open(url: "test://screens/x") }
        #expect(throws: FlowError("no deep link matches 'other://x'; no deep link patterns are declared")) {
            try harness.open(url: "other://x")
        }
    }

    /// The loop docs/authoring.md section 7 shows for the deep links a plugin declares, which a harness does
    /// not install by itself.
    @Test func aPluginsDeclaredDeepLinksInstallWithALoop() throws {
        var plugin = testPlugin
        plugin.deepLinks = [
            DeclaredDeepLink(
                "test://screens/{name}", opens: [CoordinationRequest("screen.show", payload: ["module": "{name}"])])
        ]
        let harness = FlowHarness(plugin: plugin)
        harness.route("screen.show", to: "Show")

        for link in plugin.deepLinks { harness.deepLink(link.pattern, to: link.requests) }
        try harness.open(url: "test://screens/detail")

        #expect(harness.top == "detail")
    }

    @Test func badPatternIsAnIssueAtTheCallSite() {
        let harness = FlowHarness(plugin: testPlugin)

        withKnownIssue {
            harness.deepLink("screens/{name}", to: [CoordinationRequest("screen.show")])
        }
        #expect(harness.deepLinks.routes.isEmpty)
    }

    @Test func backToRootAndBackToAModule() throws {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("screen.show", to: "Show")
        for module in ["home", "list", "detail", "more"] {
            harness.send("screen.show", payload: .object(["module": .string(module)]))
        }

        try harness.back(to: "list")
        #expect(harness.state.stack == ["home", "list"])
        try harness.backToRoot()
        #expect(harness.state.stack == ["home"])
    }
}

// MARK: - Test Helpers

/// The plugin under test: two managers and a service.
private let testPlugin = PluginDescription(
    name: "test", version: "1.0.0",
    managers: [ManagerFactory("Show", ShowManager.self), ManagerFactory("Store", StoreManager.self)],
    services: [ServiceFactory("Recorder") { RecordingService() }]
)

/// Presents a module named by the payload's `module` (default "screen") with its `style` (default
/// inline), showing the context; `next` requests `next.show`, `close` finishes.
private final class ShowManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let style: PresentationStyle =
            switch request.payload["style"]?.string {
            case "modal": .modal
            case let title? where title.hasPrefix("tab:"): .tab(String(title.dropFirst(4)))
            default: .inline
            }
        let screen = self.module(
            Coordinated(request.payload["module"]?.string ?? "screen"),
            content: ["context": .object(context.values)],
            actions: [
                .request("next", "next.show"),
                ModuleAction("close") { _, _ in
                    self.finish()
                    return nil
                },
            ])
        return .present(screen, style)
    }
}

/// Needs the `store` dependency; presents `stored`, showing it.
private final class StoreManager: FlowManager {
    override class var requirements: [DependencyKey] { ["store"] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let store = coordinator.dependencies[TypedDependencyKey<String>("store")] ?? "missing"
        return .present(self.module("stored", content: ["store": .string(store)]), .inline)
    }
}

/// Records its start, stop and lifecycle events.
@MainActor
private final class RecordingService: CoordinatorServiceLifeCycleProtocol {
    private(set) var entries: [String] = []

    func start(with coordinator: any FlowCoordinator) { entries.append("start") }
    func stop() { entries.append("stop") }
    func willEnterBackground() { entries.append("willEnterBackground") }
    func didEnterBackground() { entries.append("didEnterBackground") }
    func willEnterForeground() { entries.append("willEnterForeground") }
    func didBecomeActive() { entries.append("didBecomeActive") }
    func willTerminate() { entries.append("willTerminate") }
}

/// Provides a context with the user "grace".
@MainActor
private final class ContextService: ContextProviderProtocol {
    let context = CoordinatorContext(["user": "grace"])
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}

extension FlowEvent {
    /// Whether this is a service starting or stopping.
    fileprivate var isServiceEvent: Bool {
        switch self {
        case .serviceStarted, .serviceStopped: true
        default: false
        }
    }
}

extension FlowHarnessTests {
    // MARK: - Guards

    /// A harness where `catalog.*` is redirected to a modal `signIn` screen unless the context has a user.
    private func guardedHarness() -> FlowHarness {
        let harness = FlowHarness(plugin: testPlugin)
        harness.route("catalog.list", to: "Show")
        harness.route("auth.signIn", to: "Show")
        harness.guardRequests(
            ["catalog.*"], unless: .context("user"),
            redirectTo: CoordinationRequest("auth.signIn", payload: ["module": "signIn", "style": "modal"]),
            name: "signedIn")
        return harness
    }

    @Test func aGuardedRequestWaitsForTheRedirectsFlowThenResumes() throws {
        let harness = guardedHarness()

        let outcome = harness.send("catalog.list", from: "home", payload: ["module": "list"])

        #expect(outcome.isRedirected)
        #expect(harness.top == "signIn")
        #expect(harness.heldRequests.map(\.request.name) == ["catalog.list"])
        harness.context = ["user": "ada"]
        try harness.perform("close")
        #expect(harness.state == PresentationState(stack: ["list"], top: "list"))
        #expect(harness.resumed.map(\.module) == ["home"])
        #expect(harness.heldRequests.isEmpty)
        #expect(harness.redirected.count == 1)
    }

    @Test func dismissingTheRedirectDropsTheGuardedRequest() throws {
        let harness = guardedHarness()
        harness.send("catalog.list", payload: ["module": "list"])

        try harness.dismiss()

        #expect(harness.dropped.map(\.redirect.name) == ["auth.signIn"])
        #expect(harness.resumed.isEmpty)
        #expect(harness.state.top == nil)
    }

    @Test func guardDecisionSaysWhatTheChainWouldDoWithoutSending() {
        let harness = guardedHarness()
        harness.addGuard(
            ClosureGuard("legacy") { request, _, _ in
                request.name == "catalog.old" ? .rewrite(CoordinationRequest("catalog.list")) : .proceed
            })

        #expect(
            harness.guardDecision(for: "catalog.list")
                == .redirect(CoordinationRequest("auth.signIn", payload: ["module": "signIn", "style": "modal"])))
        harness.context = ["user": "ada"]
        #expect(harness.guardDecision(for: "catalog.list") == .proceed)
        #expect(harness.guardDecision(for: "catalog.old") == .rewrite(CoordinationRequest("catalog.list")))
        #expect(harness.events.isEmpty, "nothing was sent")
    }

    @Test func aMalformedPatternIsAnIssueAtTheCallSite() {
        let harness = FlowHarness(plugin: testPlugin)

        withKnownIssue {
            harness.guardRequests(["cat*"], unless: .context("user"), redirectTo: CoordinationRequest("auth.signIn"))
        }
        #expect(harness.coordinator.guardChain.isEmpty)
    }
}
