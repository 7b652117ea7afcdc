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
}
