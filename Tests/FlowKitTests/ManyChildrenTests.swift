import FlowKit
import Testing

/// Going back no longer visits every open child flow and every presented module: what it finishes and
/// ends must stay exactly what it was, however many children are open.
@MainActor
struct ManyChildrenTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.showList): route("List", PresentingManager.self),
        RequestRoute(.work): route("Work", WorkingManager.self),
    ]

    /// A root showing `home`, with `count` inline children each showing `stepN`; the log's entries say how
    /// each child ended.
    private func rootWithChildren(_ count: Int) -> (BaseFlowCoordinator, [BaseFlowCoordinator], Log) {
        let (root, log) = BaseFlowCoordinator.withLog(mapping)
        root.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        var children: [BaseFlowCoordinator] = []
        for index in 0..<count {
            let child = BaseFlowCoordinator(name: "child\(index)")
            root.openChild(child, style: .inline) { log.append("child\(index): \($0)") }
            child.requestCoordination(.showList, payload: ["module": .string("step\(index)")], from: .app)
            children.append(child)
        }
        return (root, children, log)
    }

    @Test func goingBackPastOneOfManyChildrensLastScreenFinishesThatChildOnly() throws {
        let (root, children, log) = rootWithChildren(50)

        try root.back()

        #expect(log.entries == ["child49: cancelled"])
        #expect(!children[49].isRunning)
        #expect(root.children.count == 49)
        #expect(children[..<49].filter { !$0.isRunning }.isEmpty)
        #expect(log.ends == ["step49: dismissed"])
    }

    @Test func presentingAndGoingBackOverManyChildrenFinishesNoneOfThem() throws {
        let (root, children, log) = rootWithChildren(50)

        for _ in 0..<3 {
            root.requestCoordination(.showList, payload: ["module": "detail"], from: "home")
            try root.back()
        }

        #expect(root.children.count == 50)
        #expect(children.filter { !$0.isRunning }.isEmpty)
        #expect(log.entries.isEmpty)
        #expect(log.ends == ["detail: dismissed", "detail: dismissed", "detail: dismissed"])
        #expect(root.router.state.top == "step49")
    }

    @Test func aChildWhoseScreenLeavesBecauseItsManagerFinishedCompletes() throws {
        let (root, children, log) = rootWithChildren(10)
        let manager = try #require(log.managers[4].object)  // home's manager first, then one per child

        manager.finish()

        #expect(log.entries == ["child3: \(FlowResult.completed(.null))"])
        #expect(!children[3].isRunning)
        #expect(root.children.count == 9)
        #expect(!root.router.state.stack.contains("step3"))
    }

    @Test func dismissingAModalFinishesTheInlineChildrenInsideItAndOnlyThem() throws {
        let (root, children, log) = rootWithChildren(5)
        root.requestCoordination(.showList, payload: ["module": "sheet", "style": "modal"], from: "home")
        let inside = BaseFlowCoordinator(name: "inside")
        root.openChild(inside, style: .inline)
        inside.requestCoordination(.showList, payload: ["module": "insideStep"], from: .app)
        #expect(root.router.state.modals == [["sheet", "insideStep"]])

        try root.dismiss()

        #expect(!inside.isRunning)
        #expect(log.entries.isEmpty, "no child of the main stack finished")
        #expect(children.filter { !$0.isRunning }.isEmpty)
        #expect(root.children.count == 5)
    }

    /// Reopened, a child is what a new one is until it shows a screen (see `AbandonedChildCheckTests`).
    @Test func aReopenedChildFinishesAtTheNextRemovalOnlyOnceItShowedAScreenAgain() throws {
        let (root, children, _) = rootWithChildren(2)
        let child = children[1]
        try root.back()  // finishes child1: its only screen left
        #expect(!child.isRunning)
        root.openChild(child, style: .inline)
        root.requestCoordination(.showList, payload: ["module": "detail"], from: "home")
        #expect(child.isRunning)

        try root.back()
        #expect(child.isRunning, "it has shown nothing since it was reopened: not abandoned")
        child.present(FlowModule("again", coordination: child), style: .inline, by: nil)
        try root.back()

        #expect(!child.isRunning, "its screen shown since went: abandoned")
        #expect(children[0].isRunning)
    }

    @Test func aManagerHeldByAWorkingListAndAModuleEndsOnlyWhenBothLetGo() throws {
        let (root, children, log) = rootWithChildren(3)
        root.requestCoordination(.work, from: "home")
        let worker = try #require(log.managers.last?.object)
        worker.present(worker.module("progress"), style: .inline)
        _ = root.apply(.working, for: worker)  // working as well as showing its module

        try root.back()
        #expect(!log.ends.contains("work: dismissed"), "still working")

        worker.finish()
        #expect(log.ends.last == "work: finished")
        #expect(children.filter { !$0.isRunning }.isEmpty)
    }

    @Test func aManagerThatIsNotAFlowManagerStillEndsWhenItsModuleLeaves() throws {
        let (root, children, log) = rootWithChildren(3)
        root.mapping[RequestRoute("plain")] = ManagerFactory("Plain", PlainManager.self)
        root.requestCoordination("plain", from: .app)
        root.requestCoordination("plain", from: .app)
        #expect(log.ends.isEmpty)

        try root.back()
        #expect(log.ends == ["plain: dismissed"], "the first plain manager's module is still shown")
        try root.back()

        #expect(log.ends == ["plain: dismissed", "plain: dismissed"])
        #expect(children.filter { !$0.isRunning }.isEmpty)
    }
}

// MARK: - Test Helpers

/// Conforms to the protocol directly, so that its holds are found by looking rather than counted.
@MainActor
private final class PlainManager: RequestCoordinatorManager {
    private unowned let coordinator: any FlowCoordinator
    private var log: Log?

    init(coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
    }

    func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        log = coordinator.dependencies[.log]
        return .present(FlowModule("plain", coordination: coordinator), .inline)
    }

    func didEnd(_ reason: ManagerEndReason) {
        log?.ends.append("plain: \(reason)")
    }
}
