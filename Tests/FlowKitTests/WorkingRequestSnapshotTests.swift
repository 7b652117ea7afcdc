import Testing

@testable import FlowKit

/// A request whose manager is still working (it answered `.working`, and will show its screen when its work is
/// done) is part of where the person is: a snapshot taken meanwhile keeps it, and a restore sends it again, so that
/// a supervised host that crashed while a screen was loading comes back loading it. A snapshot used to keep only
/// the steps of what was on screen, and the request was lost without a word ("the screen is as saved").
@MainActor
struct WorkingRequestSnapshotTests {
    private func app(_ log: StartLog) -> BaseFlowCoordinator {
        let coordinator = BaseFlowCoordinator(
            name: "app",
            mapping: [
                RequestRoute("home"): route("Home", HomeManager.self),
                RequestRoute("load"): route("Load", LoadingManager.self),
            ])
        coordinator.isRestorable = true
        coordinator.setDependency(.startLog, log)
        coordinator.start()
        return coordinator
    }

    @Test func aRequestUnderWayIsSavedAndSentAgainByARestore() throws {
        let log = StartLog()
        let saving = app(log)
        saving.requestCoordination(CoordinationRequest("home"), from: "start")
        saving.requestCoordination(CoordinationRequest("load", payload: ["id": 7]), from: "home")
        #expect(log.loads == [7])

        let snapshot = try FlowSnapshot(json: saving.snapshot().json)
        #expect(snapshot.steps.map(\.request.name) == ["home", "load"])

        let restoring = app(log)
        let report = try restoring.restore(snapshot)
        #expect(report.isComplete, "\(report.summary)")
        #expect(log.loads == [7, 7], "the restore sent the request under way again")
        #expect(restoring.activeManagerCount == 2, "home's manager shows home; load's works")

        // Once its work is done and it showed its screen, the request is saved for that screen, once.
        let loading = try #require(log.loading)
        loading.present(loading.module("detail"), style: .inline)
        #expect(restoring.snapshot().steps.map(\.request.name) == ["home", "load"])
        #expect(restoring.router.state.stack == ["home", "detail"])
    }

    @Test func aRequestWhoseManagerFinishedWithoutShowingAnythingIsNotSaved() throws {
        let log = StartLog()
        let saving = app(log)
        saving.requestCoordination(CoordinationRequest("home"), from: "start")
        saving.requestCoordination(CoordinationRequest("load", payload: ["id": 7]), from: "home")
        try #require(log.loading).finish()

        #expect(saving.snapshot().steps.map(\.request.name) == ["home"])
    }
}

extension TypedDependencyKey<StartLog> {
    fileprivate static let startLog = Self("working.startLog")
}

/// The ids `load` was started with, in order, and the manager that handles it last.
@MainActor
private final class StartLog {
    var loads: [Int] = []
    weak var loading: LoadingManager?
}

@MainActor
private final class HomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module("home"), .inline)
    }
}

/// Works, as one awaiting a server would; the test presents for it when its work is done.
@MainActor
private final class LoadingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let log = coordinator.dependencies[.startLog]
        log?.loads.append(request.payload["id"]?.int ?? 0)
        log?.loading = self
        return .working
    }
}
