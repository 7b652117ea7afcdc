import FlowKit
import Testing

/// What a plugin reaches through ``FlowCoordinator``, with no cast to ``BaseFlowCoordinator``.
@MainActor
struct FlowCoordinatorTests {
    @Test func aChildSeesItsParentAndTheParentItsChildrenThroughTheProtocol() {
        let root = BaseFlowCoordinator(name: "root")
        let first = BaseFlowCoordinator(name: "first")
        let second = BaseFlowCoordinator(name: "second")
        root.openChild(first, style: .modal)
        root.openChild(second, style: .tab("Second"))
        let seenByPlugin: any FlowCoordinator = first
        let rootSeenByPlugin: any FlowCoordinator = root

        #expect(seenByPlugin.parentCoordinator === root)
        #expect(rootSeenByPlugin.parentCoordinator == nil)
        #expect(rootSeenByPlugin.childCoordinators.map(\.name) == ["first", "second"])

        first.finish(with: .cancelled)

        #expect(rootSeenByPlugin.childCoordinators.map(\.name) == ["second"])
        #expect(seenByPlugin.parentCoordinator == nil, "a finished child has left its parent")
    }

    @Test func aManagerFindsTheRootAndFinishesItsFlowThroughItsCoordinator() {
        let root = BaseFlowCoordinator(name: "root")
        let flow = BaseFlowCoordinator(
            name: "flow", mapping: [RequestRoute("flow.end"): ManagerFactory("End", EndingManager.self)])
        var result: FlowResult?
        root.openChild(flow, style: .modal, onResult: { result = $0 })

        flow.requestCoordination("flow.end", from: .app)

        #expect(result == .completed(["root": "root"]))
        #expect(root.childCoordinators.isEmpty)
    }
}

// MARK: - Test Helpers

/// Walks up to the root through `parentCoordinator` and ends its own flow with the root's name.
private final class EndingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        var root: any FlowCoordinator = coordinator
        while let parent = root.parentCoordinator { root = parent }
        coordinator.finish(with: .completed(["root": .string(root.name)]))
        return .finished
    }
}
