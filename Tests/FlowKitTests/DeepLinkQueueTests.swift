import FlowKit
import Testing

/// A deep link whose step waits for a dependency: the later steps wait with it, in order.
@MainActor
struct DeepLinkQueueTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.needsStore): route("Store", StoreManager.self),
        RequestRoute(.showList): route("List", PresentingManager.self),
        RequestRoute(.showDetail): route("Detail", PresentingManager.self),
    ]

    @Test func laterStepsWaitWithAQueuedStepAndRunInOrderAfterIt() {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)

        let result = coordinator.open(deepLink: [
            CoordinationRequest(.needsStore, payload: ["n": 1]),
            CoordinationRequest(.showList, payload: ["module": "list"]),
            CoordinationRequest(.needsStore, payload: ["n": 2]),
        ])

        #expect(result.isWaiting)
        #expect(
            result.description == "deep link waiting at step 1 of 3, with the 2 later steps: queued until store is set")
        #expect(coordinator.queuedRequests == [CoordinationRequest(.needsStore, payload: ["n": 1])])
        #expect(coordinator.router.state.stack.isEmpty, "the later steps did not run ahead of the queued one")

        coordinator.setDependency(.store, "ready")

        #expect(log.entries == ["store 1", "store 2"])
        #expect(coordinator.router.state.stack == ["list"])
        #expect(coordinator.queuedRequests.isEmpty)
    }

    @Test func stepQueuedHalfwayHoldsOnlyTheStepsAfterIt() {
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping)

        let result = coordinator.open(deepLink: [
            CoordinationRequest(.showList, payload: ["module": "list"]),
            CoordinationRequest(.needsStore, payload: ["n": 1]),
            CoordinationRequest(.showDetail, payload: ["module": "detail"]),
        ])

        #expect(result.applied == 1)
        #expect(coordinator.router.state.stack == ["list"])
        coordinator.setDependency(.store, "ready")
        #expect(coordinator.router.state.stack == ["list", "detail"])
    }

    @Test func deadLetteredStepEndsTheLinkWithThatReason() {
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping)
        coordinator.open(deepLink: [
            CoordinationRequest(.needsStore, payload: ["n": 1]),
            CoordinationRequest(.showList, payload: ["module": "list"]),
        ])

        coordinator.expireQueuedRequests(now: .now + .seconds(31))
        coordinator.setDependency(.store, "late")

        #expect(
            coordinator.deadLetters.map(\.reason) == [
                "waited longer than 30.0 seconds for store; the deep link ends here, its 1 later step is dropped"
            ])
        #expect(coordinator.router.state.stack.isEmpty, "a dropped step never runs")
    }

    /// A link from the root whose first step waits: the later steps wait with it and run once, after it, from
    /// the visible module; the modal was dismissed before the first step was sent.
    @Test func aLinkFromTheRootWhoseFirstStepIsQueuedRunsItsLaterStepsOnceAfterIt() {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)
        coordinator.requestCoordination(.showList, payload: ["module": "form", "style": "modal"], from: .app)

        let result = coordinator.open(
            deepLink: [
                CoordinationRequest(.needsStore, payload: ["n": 1]),
                CoordinationRequest(.showList, payload: ["module": "list"]),
                CoordinationRequest(.showDetail, payload: ["module": "detail"]),
            ], fromRoot: true)

        #expect(
            result.description == "deep link waiting at step 1 of 3, with the 2 later steps: queued until store is set")
        #expect(coordinator.router.state.modals.isEmpty)
        coordinator.setDependency(.store, "ready")

        #expect(log.entries == ["store 1"])
        #expect(coordinator.router.state.stack == ["list", "detail"], "each later step ran once")
    }

    @Test func requestsOutsideTheLinkDoNotCarryIt() {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)
        coordinator.open(deepLink: [
            CoordinationRequest(.needsStore, payload: ["n": 1]),
            CoordinationRequest(.showList, payload: ["module": "list"]),
        ])
        coordinator.requestCoordination(.needsStore, payload: ["n": 2], from: .app)

        coordinator.setDependency(.store, "ready")

        #expect(log.entries == ["store 1", "store 2"])
        #expect(coordinator.router.state.stack == ["list"], "the link ran once, after its own step")
    }
}
