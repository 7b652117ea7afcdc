import FlowKit
import Testing

/// A request's asker hears how its manager ended, as a child flow's opener does.
@MainActor
struct RequestResultTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.showList): route("List", PresentingManager.self),
        RequestRoute(.work): route("Work", WorkingManager.self),
        RequestRoute("fail"): route("Fail", ThrowingManager.self),
        RequestRoute("pick"): route("Pick", PickingManager.self),
        RequestRoute(.needsStore): route("Store", StoreManager.self),
        RequestRoute("plain"): route("Plain", PlainManager.self),
    ]

    @Test func workingManagerHandsItsResultToTheAsker() throws {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)
        var results: [FlowResult] = []

        let outcome = coordinator.requestCoordination(CoordinationRequest(.work), from: .app) { results.append($0) }
        #expect(outcome == .handled(manager: "Work"))
        #expect(results.isEmpty, "nothing until the manager ends")
        let manager = try #require(log.managers.last?.object)
        manager.finish(with: .completed(["id": 4]))

        #expect(results == [.completed(["id": 4])])
        manager.finish(with: .completed(["id": 5]))
        #expect(results.count == 1, "once")
    }

    @Test func dismissedManagerIsCancelledAndThrowingStartFails() throws {
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping)
        coordinator.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        var results: [String: FlowResult] = [:]

        coordinator.requestCoordination(CoordinationRequest(.showList, payload: ["module": "detail"]), from: "home") {
            results["detail"] = $0
        }
        let failed = coordinator.requestCoordination(CoordinationRequest("fail"), from: .app) { results["fail"] = $0 }
        try coordinator.back()

        #expect(results == ["detail": .cancelled, "fail": .failed(FlowError("no network"))])
        #expect(failed == .failed(FlowError("no network")))
    }

    @Test func managerThatFinishesInStartCompletesAtOnceWithWhatItGave() {
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping)
        var result: FlowResult?

        coordinator.requestCoordination(CoordinationRequest("pick", payload: ["choice": "b"]), from: .app) {
            result = $0
        }

        #expect(result == .completed("b"))
    }

    @Test func nestedRequestsAndQueuedOnesDoNotTakeTheHandler() throws {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)
        var results: [FlowResult] = []

        let queued = coordinator.requestCoordination(CoordinationRequest(.needsStore), from: .app) {
            results.append($0)
        }
        coordinator.setDependency(.store, "ready")
        coordinator.requestCoordination(CoordinationRequest("pick", payload: ["then": "list.show"]), from: .app) {
            results.append($0)
        }

        #expect(queued == .queued(waitingFor: [.store]))
        #expect(log.entries == ["store -1"], "the queued request ran on replay, without the handler")
        #expect(results == [.completed(.null)], "only the picker's own end, not the list it asked for")
        #expect(coordinator.router.state.stack == ["screen"])
    }

    /// A manager that is not a ``FlowManager`` has its asker kept by the tree, not by itself: the same
    /// results reach the asker, each once.
    @Test func aManagerOfItsOwnKindHandsOnWhatItGaveWasDismissedOrThrew() throws {
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping)
        coordinator.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        var results: [String: FlowResult] = [:]

        coordinator.requestCoordination(CoordinationRequest("plain"), from: "home") { results["given"] = $0 }
        let given = try #require(PlainManager.last)
        coordinator.finish(given, with: .completed(["id": 7]))
        coordinator.finish(given, with: .completed(["id": 8]))
        coordinator.requestCoordination(CoordinationRequest("plain"), from: "home") { results["dismissed"] = $0 }
        try coordinator.back()
        coordinator.requestCoordination(CoordinationRequest("plain", payload: ["fail": true]), from: "home") {
            results["threw"] = $0
        }

        #expect(
            results == [
                "given": .completed(["id": 7]), "dismissed": .cancelled, "threw": .failed(FlowError("plain failed")),
            ])
        #expect(coordinator.router.state.stack == ["home"])
    }
}

// MARK: - Test Helpers

/// Conforms to the protocol directly rather than through ``FlowManager``: presents `plain`, or throws when
/// the payload says `fail`.
@MainActor
private final class PlainManager: RequestCoordinatorManager {
    /// The one made last, for a test to finish.
    static weak var last: PlainManager?
    private unowned let coordinator: any FlowCoordinator

    init(coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
        Self.last = self
    }

    func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        if request.payload["fail"] == true { throw FlowError("plain failed") }
        return .present(FlowModule("plain", coordination: coordinator), .inline)
    }
}

/// Finishes inside `start` with the payload's `choice`; with `then`, first asks for that request.
@MainActor
private final class PickingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        if let then = request.payload["then"]?.string {
            coordinator.requestCoordination(CoordinationRequestName(then), from: .app)
        }
        if let choice = request.payload["choice"] { finish(with: .completed(choice)) }
        return .finished
    }
}
