import FlowKit
import Testing

/// A manager that finishes while its own `start` runs, then answers `.working`: the tour of the authoring
/// guide (section 2), whose child flow's first request fails, so that the child's `onResult`, and the
/// tour's `finish()` in it, run before `start` returns.
@MainActor
struct FinishDuringStartTests {
    @Test func aManagerThatFinishedDuringItsStartIsNotKeptWorking() throws {
        let parent = BaseFlowCoordinator(mapping: [RequestRoute("tour.show"): route("Tour", FailingTourManager.self)])
        parent.start()
        var events: [FlowEvent] = []
        parent.onEvent = { events.append($0) }
        var results: [FlowResult] = []

        let outcome = parent.requestCoordination(CoordinationRequest("tour.show"), from: .app) { results.append($0) }

        #expect(outcome == .handled(manager: "Tour"))
        #expect(results == [.failed(FlowError("no route for the tour's page"))])
        #expect(events.contains(.managerEnded("Tour", reason: .finished)))
        #expect(parent.activeManagerCount == 0, "it finished: nothing keeps it working")
        #expect(parent.router.state.modals.isEmpty)
    }

    @Test func aManagerThatFinishedDuringItsStartAndAnswersFinishedEndsOnce() throws {
        let parent = BaseFlowCoordinator(mapping: [RequestRoute("done"): route("Done", ResultInStartManager.self)])
        parent.start()
        var ends: [FlowEvent] = []
        parent.onEvent = { if $0.kind == .managerEnded { ends.append($0) } }
        var results: [FlowResult] = []

        parent.requestCoordination(CoordinationRequest("done"), from: .app) { results.append($0) }

        #expect(results == [.completed(7)])
        #expect(ends == [.managerEnded("Done", reason: .finished)])
    }
}

/// Opens a `tour` child whose first request no route handles, and finishes from the child's `onResult`,
/// as the guide's `TourManager` does.
@MainActor
private final class FailingTourManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let tour = BaseFlowCoordinator(name: "tour")
        coordinator.openChild(
            tour, style: .modal,
            onResult: { [weak self] result in
                self?.finish(with: result)
            })
        switch tour.requestCoordination("tour.page", from: "tour") {
        case .failed(let error): tour.finish(with: .failed(error))
        case .unhandled: tour.finish(with: .failed(FlowError("no route for the tour's page")))
        default: break
        }
        return .working
    }
}

/// Gives its result and finishes during `start`, then answers `.finished`.
@MainActor
private final class ResultInStartManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        finish(with: .completed(7))
        return .finished
    }
}
