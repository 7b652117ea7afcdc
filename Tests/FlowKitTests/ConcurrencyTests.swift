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
}
