import FlowKit
import Testing

@MainActor
struct QueueTests {
    @Test func requestsWaitForDependenciesAndReplayInOrder() {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.needsStore): route("Store", StoreManager.self)
        ])

        for n in 1...3 {
            #expect(
                coordinator.requestCoordination(.needsStore, payload: ["n": .number(Double(n))], from: .app)
                    == .queued(waitingFor: [.store]))
        }
        #expect(log.entries.isEmpty)

        coordinator.setDependency(.store, "ready")

        #expect(log.entries == ["store 1", "store 2", "store 3"])
        #expect(coordinator.queuedRequests.isEmpty)
        #expect(
            coordinator.requestCoordination(.needsStore, payload: ["n": 4], from: .app) == .handled(manager: "Store"))
    }

    @Test func childQueueReplaysWhenTheParentGetsTheDependency() {
        let (parent, log) = BaseFlowCoordinator.withLog([:])
        let child = BaseFlowCoordinator(
            name: "child", mapping: [RequestRoute(.needsStore): route("Store", StoreManager.self)])
        parent.openChild(child, style: .inline)
        child.requestCoordination(.needsStore, payload: ["n": 1], from: .app)

        parent.setDependency(.store, "ready")

        #expect(log.entries == ["store 1"])
    }

    @Test func requestWaitingPastTheLimitIsDeadLettered() async {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.needsStore): route("Store", StoreManager.self)
        ])
        coordinator.queueTimeout = .milliseconds(20)
        let deadLettered = AsyncStream<DeadLetter>.makeStream()
        coordinator.onEvent = { event in
            if case .deadLettered(let letter) = event { deadLettered.continuation.yield(letter) }
        }

        coordinator.requestCoordination(.needsStore, payload: ["n": 1], from: "cart")
        var iterator = deadLettered.stream.makeAsyncIterator()
        let letter = await iterator.next()

        #expect(letter?.module == "cart")
        #expect(letter?.reason == "waited longer than 0.02 seconds for store")
        #expect(coordinator.queuedRequests.isEmpty)
        coordinator.setDependency(.store, "late")
        #expect(log.entries.isEmpty, "a dead letter is never replayed")
    }

    @Test func expiringBeforeTheDeadlineKeepsTheRequest() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.needsStore): route("Store", StoreManager.self)
        ])
        coordinator.requestCoordination(.needsStore, from: .app)

        coordinator.expireQueuedRequests(now: .now)
        #expect(coordinator.queuedRequests.count == 1)

        coordinator.expireQueuedRequests(now: .now + .seconds(31))
        #expect(coordinator.queuedRequests.isEmpty)
        #expect(coordinator.deadLetters.count == 1)
    }

    @Test func stoppingDeadLettersWhatIsStillQueued() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.needsStore): route("Store", StoreManager.self)
        ])
        coordinator.requestCoordination(.needsStore, from: .app)

        coordinator.stop()

        #expect(coordinator.deadLetters.map(\.reason) == ["the coordinator 'root' stopped while it was waiting"])
    }
}

extension QueueTests {
    @Test func deadLettersKeepTheMostRecentUpToTheLimit() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.needsStore): route("Store", StoreManager.self)
        ])
        coordinator.deadLetterLimit = 2
        for n in 1...3 { coordinator.requestCoordination(.needsStore, payload: ["n": .number(Double(n))], from: .app) }

        coordinator.expireQueuedRequests(now: .now + .seconds(60))

        #expect(coordinator.deadLetters.map { $0.request.payload["n"] } == [2, 3])
    }
}
