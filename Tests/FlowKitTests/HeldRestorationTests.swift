import FlowKit
import Testing

/// A request a guard holds is part of the snapshot: restored, it is held again for its redirect's flow
/// (which comes back with it), and resumes, with the rest of its deep link, once that flow completes.
@MainActor
struct HeldRestorationTests {
    private let link = [CoordinationRequest(.catalogList), CoordinationRequest(.showDetail, payload: ["id": 2])]

    @Test func aHeldDeepLinkSavedMidSignInResumesAfterRestoreAsItWouldHaveWithout() throws {
        let saving = app()
        saving.coordinator.open(deepLink: link)
        let saved = try FlowSnapshot(json: saving.coordinator.snapshot().json)

        let restoring = app()
        let report = try restoring.coordinator.restore(saved)
        try restoring.perform("submit")
        let uninterrupted = app()
        uninterrupted.coordinator.open(deepLink: link)
        try uninterrupted.perform("submit")

        #expect(
            saved.held.map(\.description) == [
                "catalog.list from deepLink in the root coordinator, held by guard 'signedIn'"
            ])
        #expect(saved.held.first?.laterSteps == [link[1]])
        #expect(saved.held.first?.step == 0, "its redirect, auth.signIn, is the one step")
        #expect(report.summary == "restored 1 of 1 step and 1 of 1 held request; the screen is as saved")
        #expect(report.isComplete)
        #expect(restoring.coordinator.router.state == uninterrupted.coordinator.router.state)
        #expect(
            restoring.redirectEvents.last == "resuming catalog.list from deepLink: the flow of auth.signIn completed")
    }

    @Test func aHeldRequestWhoseGuardLetsItThroughByNowGoesOnAtOnce() throws {
        let saving = app()
        saving.coordinator.requestCoordination(CoordinationRequest(.catalogList), from: .app)
        let saved = saving.coordinator.snapshot()

        let restoring = app()
        restoring.session.user = "ada"
        let report = try restoring.coordinator.restore(saved)

        #expect(report.heldRestored == 1 && restoring.coordinator.heldRequests.isEmpty)
        #expect(restoring.coordinator.router.top?.name != "signIn")
    }

    @Test func aSnapshotOfVersion1HasNoHeldRequestsAndStillReads() throws {
        let saving = app()
        saving.coordinator.requestCoordination(CoordinationRequest(.catalogList), from: .app)
        var json = saving.coordinator.snapshot().json.object ?? [:]
        json["held"] = nil
        json["version"] = 1

        let old = try FlowSnapshot(json: .object(json))

        #expect(old.version == 1 && old.held.isEmpty)
    }

    private func app() -> GuardedApp {
        let app = GuardedApp()
        app.coordinator.isRestorable = true
        return app
    }
}
