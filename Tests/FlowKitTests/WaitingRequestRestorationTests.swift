import FlowKit
import Testing

/// A request still waiting is part of the snapshot: restored, a request a guard holds is held again for its
/// redirect's flow (which comes back with it), and resumes, with the rest of its deep link, once that flow
/// completes; a request queued for dependencies is queued again, and runs once they are set.
@MainActor
struct WaitingRequestRestorationTests {
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
            saved.waiting.map(\.description) == [
                "catalog.list from deepLink in the root coordinator, held by guard 'signedIn'"
            ])
        #expect(saved.waiting.first?.laterSteps == [link[1]])
        #expect(saved.waiting.first?.step == 0, "its redirect, auth.signIn, is the one step")
        #expect(report.summary == "restored 1 of 1 step and 1 of 1 waiting request; the screen is as saved")
        #expect(report.isComplete)
        #expect(restoring.coordinator.router.state == uninterrupted.coordinator.router.state)
        #expect(
            restoring.redirectEvents.last == "resuming catalog.list from deepLink: the flow of auth.signIn completed")
    }

    @Test func restoringOverAHeldRequestDropsItForTheRestoreAndHoldsTheSavedOneAgain() throws {
        let app = app()
        app.coordinator.requestCoordination(CoordinationRequest(.catalogList), from: .app)
        let saved = app.coordinator.snapshot()

        let report = try app.coordinator.restore(saved)

        #expect(
            app.redirectEvents.filter { $0.contains("dropped") } == [
                "catalog.list from app dropped: the presentation was replaced by a restored snapshot"
            ], "not judged by its guard as its flow went")
        #expect(report.waitingRestored == 1 && app.coordinator.heldRequests.count == 1)
    }

    @Test func aWaitingRequestThatDoesNotComeBackIsNeverReportedAsSaved() throws {
        let saving = app()
        saving.session.user = "ada"
        saving.coordinator.requestCoordination(CoordinationRequest("catalog.stored"), from: .app)
        let saved = saving.coordinator.snapshot()
        let restoring = app()
        restoring.coordinator.mapping[RequestRoute("catalog.stored")] = nil

        let report = try restoring.coordinator.restore(saved)

        #expect(
            report.description == """
                restored 0 of 0 steps and 0 of 1 waiting request; the screen is as saved, but not all of the snapshot came back
                waiting request (catalog.stored from app in the root coordinator): no route handles it any more
                """)
    }

    @Test func aHeldRequestWhoseGuardLetsItThroughByNowGoesOnAtOnce() throws {
        let saving = app()
        saving.coordinator.requestCoordination(CoordinationRequest(.catalogList), from: .app)
        let saved = saving.coordinator.snapshot()

        let restoring = app()
        restoring.session.user = "ada"
        let report = try restoring.coordinator.restore(saved)

        #expect(report.waitingRestored == 1 && restoring.coordinator.heldRequests.isEmpty)
        #expect(restoring.coordinator.router.top?.name != "signIn")
    }

    /// Let through at once, a held deep link step takes its later steps with it, as when it resumes.
    @Test func aHeldDeepLinkLetThroughAtOnceRunsItsLaterStepsToo() throws {
        let saving = app()
        saving.coordinator.open(deepLink: link)
        let saved = try FlowSnapshot(json: saving.coordinator.snapshot().json)

        let restoring = app()
        restoring.session.user = "ada"
        let report = try restoring.coordinator.restore(saved)
        let uninterrupted = app()
        uninterrupted.session.user = "ada"
        uninterrupted.coordinator.open(deepLink: link)

        #expect(report.waitingRestored == 1)
        #expect(restoring.coordinator.router.state == uninterrupted.coordinator.router.state)
        #expect(restoring.coordinator.router.top?.name == uninterrupted.coordinator.router.top?.name)
    }

    @Test func aSnapshotOfVersion1HasNoHeldRequestsAndStillReads() throws {
        let saving = app()
        saving.coordinator.requestCoordination(CoordinationRequest(.catalogList), from: .app)
        var json = saving.coordinator.snapshot().json.object ?? [:]
        json["waiting"] = nil
        json["version"] = 1

        let old = try FlowSnapshot(json: .object(json))

        #expect(old.version == 1 && old.waiting.isEmpty)
    }

    @Test func aRequestQueuedForItsDependenciesIsQueuedAgainAndRunsOnceTheyAreSet() throws {
        let saving = app()
        saving.session.user = "ada"  // past the guard, waiting for the store
        let outcome = saving.coordinator.requestCoordination(
            CoordinationRequest("catalog.stored", payload: ["n": 7]), from: .app)
        let saved = try FlowSnapshot(json: saving.coordinator.snapshot().json)

        let restoring = app()
        restoring.session.user = "ada"
        let report = try restoring.coordinator.restore(saved)
        restoring.coordinator.setDependency(.store, "the store")

        #expect(outcome == .queued(waitingFor: [.store]))
        #expect(
            saved.waiting.map(\.description) == [
                #"catalog.stored {"n":7} from app in the root coordinator, queued for its dependencies"#
            ])
        #expect(report.summary == "restored 0 of 0 steps and 1 of 1 waiting request; the screen is as saved")
        #expect(restoring.log.entries.contains("store 7"), "\(restoring.log.entries)")
    }

    private func app() -> GuardedApp {
        let app = GuardedApp()
        app.coordinator.isRestorable = true
        return app
    }
}
