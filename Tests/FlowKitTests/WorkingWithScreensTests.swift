import Testing

@testable import FlowKit

/// A working manager that also shows a screen lets go of its working entry at the cost of finding it, not of
/// a walk of every manager working for its coordinator: it is looked for again only while it has working
/// entries left, not while its screens hold it.
@MainActor
struct WorkingWithScreensTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute("busy"): route("Busy", BusyManager.self),
        RequestRoute(.work): route("Work", WorkingManager.self),
    ]

    /// 20,000 managers each working and showing `progress`, then each, newest first, presenting `done`: every
    /// present lets go of a working entry while the manager's screen still holds it. With a walk of the working
    /// list for each (what a screen held it to), that took 29 s in a debug build; without, 0.1 s. No time is
    /// asserted: the size is what would show the walk coming back.
    @Test func thousandsOfWorkingManagersWithScreensEachPresentingAgainLetGoOfTheirWork() throws {
        let count = 20_000
        let (root, log) = BaseFlowCoordinator.withLog(mapping)
        for _ in 0..<count { try #require(root.requestCoordination("busy", from: .app).isHandled) }
        let managers = log.managers.compactMap(\.object)
        try #require(managers.count == count)
        #expect(root.working.count == count)

        var presented = 0
        for manager in managers.reversed() where manager.present(manager.module("done"), style: .inline) {
            presented += 1
        }

        #expect(presented == count)
        #expect(root.working.isEmpty)
        #expect(log.ends.isEmpty, "each still shows its screens")
        #expect(root.router.state.stack.count == 2 * count)
        #expect(managers.allSatisfy { $0.holdCount == 2 && $0.workingCount == 0 })
    }

    @Test func aManagerWorkingTwiceForOneCoordinatorLetsGoOfBothEntriesAtOnce() throws {
        // A factory may make the same manager for two requests (not through the public API, which makes a new
        // one each time, but a resolution can): both entries go when it presents, and it ends once, when it
        // finishes.
        let (root, log) = BaseFlowCoordinator.withLog([:])
        let shared = WorkingManager(coordinator: root)
        let resolved = ManagerFactory.Resolved(
            make: { _ in shared }, requirements: { [] }, name: nil, typeID: ObjectIdentifier(WorkingManager.self),
            makesFlowManagers: true)
        root.mapping[RequestRoute(.work)] = ManagerFactory(name: "Work") { resolved }
        root.requestCoordination(.work, from: .app)
        root.requestCoordination(.work, from: .app)
        #expect(root.working.count == 2)
        #expect(shared.workingCount == 2)

        #expect(shared.present(shared.module("progress"), style: .inline))

        #expect(root.working.isEmpty)
        #expect(shared.workingCount == 0)
        #expect(shared.holdCount == 1, "its screen")
        shared.finish()
        #expect(log.ends == ["work: finished"])
        #expect(shared.holdCount == 0)
    }

    @Test func aManagerWorkingForTwoCoordinatorsKeepsTheOtherEntryWhenOneLetsGo() throws {
        let (root, log) = BaseFlowCoordinator.withLog(mapping)
        let child = BaseFlowCoordinator(name: "child")
        root.openChild(child, style: .inline)
        root.requestCoordination(.work, from: .app)
        let manager = try #require(log.managers.last?.object)
        #expect(child.apply(.working, for: manager))
        #expect(manager.workingCount == 2)

        #expect(root.apply(.present(manager.module("progress"), .inline), for: manager))

        #expect(root.working.isEmpty)
        #expect(child.working.count == 1, "the child's entry is the child's")
        #expect(manager.workingCount == 1)
        child.finish(manager)
        #expect(child.working.isEmpty)
        #expect(log.ends == ["work: finished"])
    }

    @Test func takingEveryWorkingManagerLeavesNoneCountedAsWorking() throws {
        let (root, log) = BaseFlowCoordinator.withLog(mapping)
        for _ in 0..<3 { root.requestCoordination(.work, from: .app) }
        let managers = log.managers.compactMap(\.object)

        root.stop()

        #expect(root.working.isEmpty)
        #expect(managers.allSatisfy { $0.workingCount == 0 && $0.holdCount == 0 })
        #expect(log.ends.count == 3)
    }
}

// MARK: - Test Helpers

/// Shows `progress`, by itself, and keeps working: a screen and a working entry hold it.
@MainActor
private final class BusyManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        log?.managers.append(Weak(self as FlowManager))
        coordinator.present(self.module("progress"), style: .inline, by: self)
        return .working
    }
}
