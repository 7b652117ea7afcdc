import FlowKit
import Testing

/// A module's action that opens a child flow (or presents) itself, outside any request, is a step of the
/// snapshot: restoring performs it again on the module of its name, so the child flow comes back at its place
/// with its screens, and a request a guard held for that flow resumes once it completes.
@MainActor
struct ActionStepRestorationTests {
    @Test func aChildFlowAnActionOpenedComesBackWithItsScreens() throws {
        let saving = OnboardingApp()
        try saving.walkToSecondPage()
        let saved = try FlowSnapshot(json: saving.coordinator.snapshot().json)

        let restoring = OnboardingApp()
        let report = try restoring.coordinator.restore(saved)

        #expect(
            saved.steps.map(\.description) == [
                "account.welcome from app in the root coordinator",
                "action start of welcome in the root coordinator",
                #"account.page {"page":2} from page1 in onboarding"#,
            ])
        #expect(saved.children == [.init(path: ["onboarding"], style: .inline, step: 1)])
        #expect(report.summary == "restored 3 of 3 steps; the screen is as saved")
        #expect(restoring.coordinator.router.state.stack == ["welcome", "page1", "page2"])
        #expect(restoring.coordinator.children.map(\.name) == ["onboarding"])
        let pages = restoring.coordinator.router.modules.filter { $0.name != "welcome" }
        #expect(pages.allSatisfy { $0.coordination === restoring.coordinator.children.first })
    }

    @Test func aSaveMidOnboardingWithAHeldRequestResumesItOnceTheRestoredFlowCompletes() throws {
        let saving = OnboardingApp()
        saving.coordinator.requestCoordination(
            CoordinationRequest(.accountProfile, payload: ["module": "profile"]), from: .app)
        try saving.perform("start")
        try saving.perform("next")
        let saved = try FlowSnapshot(json: saving.coordinator.snapshot().json)

        let restoring = OnboardingApp()
        let report = try restoring.coordinator.restore(saved)
        let restoredState = restoring.coordinator.router.state
        try restoring.perform("done")

        #expect(
            saved.waiting.map(\.description) == [
                #"account.profile {"module":"profile"} from app in the root coordinator, held by guard 'onboarded'"#
            ])
        #expect(report.summary == "restored 3 of 3 steps and 1 of 1 waiting request; the screen is as saved")
        #expect(restoredState.stack == ["welcome", "page1", "page2"])
        #expect(restoring.session.user == "ada")
        #expect(restoring.coordinator.router.state.stack == ["profile"], "the held request resumed")
        #expect(restoring.coordinator.heldRequests.isEmpty)
    }

    @Test func requestsTheActionMadeBeforeOpeningTheFlowAreReplayedByItOnce() throws {
        let saving = OnboardingApp()
        saving.coordinator.requestCoordination(
            CoordinationRequest(.accountWelcome), from: .app)
        try saving.perform("startWithBanner")
        let saved = saving.coordinator.snapshot()

        let restoring = OnboardingApp()
        let report = try restoring.coordinator.restore(saved)

        #expect(saved.steps.map(\.action) == [nil, "startWithBanner"], "the banner's request is the action's")
        #expect(report.isComplete, "\(report)")
        #expect(restoring.coordinator.router.state.stack == ["welcome", "banner", "page1"])
    }

    @Test func anActionThatOnlyRequestsIsNoStepItsRequestIs() throws {
        let app = OnboardingApp()
        try app.walkToSecondPage()

        let steps = app.coordinator.snapshot().steps

        #expect(steps.last?.action == nil, "`next` only asked for account.page")
        #expect(steps.last?.request == CoordinationRequest(.accountPage, payload: ["page": 2]))
    }

    @Test func anActionStepWhoseModuleIsNotOnScreenIsReportedByName() throws {
        let saving = OnboardingApp()
        try saving.walkToSecondPage()
        var saved = saving.coordinator.snapshot()
        saved.steps[1].sender = "farewell"

        let report = try OnboardingApp().coordinator.restore(saved)

        #expect(
            report.problems.first?.reason
                == .failed(
                    FlowError(
                        "module 'farewell' is not on screen in the root coordinator, so its action 'start' cannot run")
                ))
        #expect(report.restored == 1)
    }

    @Test func anActionStepIsWrittenAsOneAndAVersion2SnapshotStillReads() throws {
        let saving = OnboardingApp()
        try saving.walkToSecondPage()
        let json = saving.coordinator.snapshot().json
        let welcomeOnly = OnboardingApp()
        welcomeOnly.coordinator.requestCoordination(
            CoordinationRequest(.accountWelcome), from: .app)
        var version2 = welcomeOnly.coordinator.snapshot().json.object ?? [:]
        version2["version"] = 2

        let old = try FlowSnapshot(json: .object(version2))

        #expect(json["version"] == 3)
        #expect(json["steps"]?.array?[1] == ["action": "start", "payload": [:], "from": "welcome", "coordinator": []])
        #expect(old.version == 2 && old.steps.map(\.action) == [nil])
    }

    /// An action step runs on the module of its name its coordinator shows last in the screen's order (main stack,
    /// tabs, modals), not the one shown most recently: here the modal's, though the tab's came after it.
    @Test func anActionStepRunsOnTheLastModuleOfItsNameInTheScreensOrder() throws {
        let saving = itemApp()
        saving.requestCoordination(.showItem, payload: ["n": 1, "style": "modal"], from: "home")
        saving.requestCoordination(.showItem, payload: ["n": 2, "style": "tab"], from: "home")
        let inModal = try #require(saving.router.top)
        try inModal.perform("pick")
        let saved = try FlowSnapshot(json: saving.snapshot().json)

        let restoring = itemApp()
        let report = try restoring.restore(saved)

        #expect(saving.children.map(\.name) == ["picked1"])
        #expect(report.isComplete, "\(report.summary)")
        #expect(restoring.children.map(\.name) == ["picked1"])
    }

    /// A module that left is no longer found: the next action step of its name runs on the one below it.
    @Test func anActionStepDoesNotRunOnAModuleAnEarlierStepRemoved() throws {
        let steps = [
            FlowSnapshot.Step(CoordinationRequest(.showItem, payload: ["n": 1]), from: "home"),
            FlowSnapshot.Step(CoordinationRequest(.showItem, payload: ["n": 2]), from: "home"),
            FlowSnapshot.Step(action: "pick", payload: ["leave": true], of: "item"),
            FlowSnapshot.Step(action: "pick", of: "item"),
        ]
        let crafted = FlowSnapshot(steps: steps, presentation: .init(stack: [.init("item", step: 0)]))

        let restoring = itemApp()
        let report = try restoring.restore(crafted)

        #expect(report.restored == steps.count, "\(report.summary)")
        #expect(restoring.children.map(\.name) == ["picked2", "picked1"])
        #expect(restoring.router.state.stack == ["item"])
    }

    /// A module shown twice at once is found all the same.
    @Test func anActionStepRunsOnAModuleShownTwice() throws {
        let saving = itemApp()
        saving.requestCoordination(.showItem, payload: ["n": 1, "twice": true], from: "home")
        try #require(saving.router.top).perform("pick")
        let saved = saving.snapshot()

        let restoring = itemApp()
        let report = try restoring.restore(saved)

        #expect(saving.router.state.stack == ["item", "item"])
        #expect(report.isComplete, "\(report.summary)")
        #expect(restoring.children.map(\.name) == ["picked1"])
    }

    /// A started, restorable root routing `test.item` to ``ItemManager``.
    private func itemApp() -> BaseFlowCoordinator {
        let coordinator = BaseFlowCoordinator(
            name: "app", mapping: [RequestRoute(.showItem): route("Item", ItemManager.self)])
        coordinator.isRestorable = true
        coordinator.start()
        return coordinator
    }
}

extension CoordinationRequestName {
    fileprivate static let showItem: Self = "test.item"
}

/// Shows an `item` numbered by the payload's `n`, inline, or as the payload's `style` says (`modal`, `tab`); with
/// `twice`, the same module twice. Its action `pick` opens a child flow `pickedN` itself and, with `leave` in its
/// payload, then finishes the manager, taking the item away.
@MainActor
private final class ItemManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let number = request.payload["n"]?.int ?? 0
        let item = self.module(
            "item", content: ["n": .number(Double(number))],
            actions: [
                ModuleAction("pick") { [unowned self] item, payload in
                    guard let host = item.coordination as? BaseFlowCoordinator else { return nil }
                    host.openChild(BaseFlowCoordinator(name: "picked\(number)"), style: .inline)
                    if payload["leave"] == true { self.finish() }
                    return nil
                }
            ])
        if request.payload["twice"] == true {
            coordinator.present(item, style: .inline, by: self)
            coordinator.present(item, style: .inline, by: self)
            return .finished
        }
        switch request.payload["style"]?.string {
        case "modal": return .present(item, .modal)
        case "tab": return .present(item, .tab("Item"))
        default: return .present(item, .inline)
        }
    }
}
