import FlowKit
import Testing

@MainActor
struct ConcurrencyTests {
    @Test func tenThousandRequestsFromEightTasksAreAllAccountedForInOrder() async {
        let (coordinator, log) = BaseFlowCoordinator.withLog([RequestRoute(.work): route("Count", CountingManager.self)]
        )
        let perTask = 1_250

        let handled = await withTaskGroup(of: Int.self) { group in
            for submitter in 0..<8 {
                group.addTask {
                    var handled = 0
                    for seq in 0..<perTask {
                        let request = CoordinationRequest(.work, payload: ["seq": .number(Double(seq))])
                        if seq.isMultiple(of: 2) {
                            coordinator.submit(request, from: Coordinated("submitter\(submitter)"))
                        } else if await coordinator.send(request, from: Coordinated("submitter\(submitter)")).isHandled
                        {
                            handled += 1
                        }
                    }
                    return handled
                }
            }
            var total = 0
            for await count in group { total += count }
            return total
        }
        // The last submits may still be in the inbox: a final send from every submitter flushes them in order.
        for submitter in 0..<8 {
            await coordinator.send(
                CoordinationRequest(.work, payload: ["seq": .number(Double(perTask))]),
                from: Coordinated("submitter\(submitter)"))
        }

        #expect(handled == 5_000, "every awaited send came back handled")
        #expect(log.count == 10_008, "every submit and send reached the manager, plus the flushes")
        #expect(log.outOfOrder == 0)
        #expect(log.lastBySubmitter.count == 8)
    }

    @Test func submittersThatNeverPauseDoNotHoldTheMainActorFromOtherWork() async {
        let chain = ChainLog()
        let coordinator = BaseFlowCoordinator(mapping: [RequestRoute(.work): route("Chain", ChainingManager.self)])
        coordinator.setDependency(.chain, chain)
        chain.limit = 1_000
        // Ten requests, each of which submits the next one when it is routed: an inbox that never empties.
        for _ in 0..<10 { coordinator.submit(CoordinationRequest(.work), from: .app) }
        // Queued for the main actor after the first drain: it runs once that drain's batch is routed.
        let routedBeforeOtherWork = await Task { @MainActor in chain.routed }.value

        await withCheckedContinuation { done in
            if chain.routed == chain.limit { done.resume() } else { chain.done = done }
        }

        #expect(routedBeforeOtherWork == 10, "only the batch queued when the drain began")
        #expect(chain.routed == 1_000, "every request was still routed, in later drains")
    }
}

// MARK: - Test Helpers

extension TypedDependencyKey where Value == ChainLog {
    fileprivate static let chain = TypedDependencyKey("chain")
}

@MainActor
private final class ChainLog: Sendable {
    var routed = 0
    var limit = 0
    var done: CheckedContinuation<Void, Never>?
}

/// Submits another request each time it is routed, until the chain's limit.
@MainActor
private final class ChainingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let chain = coordinator.dependencies[.chain] else { throw FlowError("no chain") }
        chain.routed += 1
        if chain.routed + 9 < chain.limit, let base = coordinator as? BaseFlowCoordinator {
            base.submit(request, from: module)
        }
        if chain.routed == chain.limit { chain.done?.resume() }
        return .finished
    }
}
