import FlowKit
import Testing

/// A guard lets through what belongs to the flow it redirected to: its redirect itself, asked for directly,
/// and the requests the flow makes (from its screens, and from the child flows they open), which the guard's
/// pattern may match too. Held, they would wait for the flow they are part of, forever.
@MainActor
struct RedirectFlowRequestTests {
    @Test func aChildFlowTheRedirectsScreenOpenedAsksThroughTheGuardAndTheHeldRequestResumes() throws {
        let app = OnboardingApp()
        app.coordinator.requestCoordination(
            CoordinationRequest(.accountProfile, payload: ["module": "profile"]), from: .app)
        try app.perform("start")
        let pageShown = app.coordinator.router.top?.name
        try app.perform("done")

        #expect(pageShown == "page1", "account.page passed the guard that redirected account.profile")
        #expect(app.coordinator.router.state.stack == ["profile"], "account.profile resumed")
        #expect(app.coordinator.heldRequests.isEmpty)
    }

    @Test func aRequestFromAnotherPlaceStillWaitsForTheFlowUnderWay() throws {
        let app = OnboardingApp()
        app.coordinator.requestCoordination(
            CoordinationRequest(.accountProfile, payload: ["module": "profile"]), from: .app)
        try app.perform("start")

        let outcome = app.coordinator.requestCoordination(
            CoordinationRequest(.accountSettings, payload: ["module": "settings"]), from: .app)

        guard case .redirected(let held) = outcome else {
            Issue.record("account.settings from app was not held: \(outcome)")
            return
        }
        #expect(held.request.name == .accountSettings)
        #expect(app.coordinator.router.state.stack == ["welcome", "page1"], "no second welcome")
    }

    @Test func theRedirectAskedForDirectlyIsShownOnceAndHoldsNothing() throws {
        let app = OnboardingApp()

        let outcome = app.coordinator.requestCoordination(CoordinationRequest(.accountWelcome), from: .app)
        try app.perform("start")
        try app.perform("done")

        #expect(outcome.isHandled)
        #expect(app.coordinator.heldRequests.isEmpty)
        #expect(app.coordinator.router.state.stack.isEmpty, "welcome went, and did not come back")
    }
}
