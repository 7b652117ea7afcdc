import FlowKit
import Testing

/// Every path that lets a manager go tells it why, exactly once, after its modules left.
@MainActor
struct ManagerLifetimeTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.showList): route("List", PresentingManager.self),
        RequestRoute(.showDetail): route("Detail", PresentingManager.self),
        RequestRoute(.work): route("Work", WorkingManager.self),
        RequestRoute("pair"): route("Pair", TwoScreenManager.self),
        RequestRoute("flash"): route("Flash", SelfFinishingManager.self),
        RequestRoute("quick"): route("Quick", QuickManager.self),
        RequestRoute("throw"): route("Throw", ThrowingRecordingManager.self),
    ]

    private func coordinator() -> (BaseFlowCoordinator, Log) {
        BaseFlowCoordinator.withLog(mapping)
    }

    // MARK: - Finished

    @Test func aManagerThatFinishesEndsOnceAsFinished() throws {
        let (coordinator, log) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        let manager = try #require(log.managers.last?.object)

        manager.finish()
        manager.finish()
        coordinator.finish(manager)

        #expect(log.ends == ["list: finished"])
        #expect(manager.endReason == .finished)
        #expect(coordinator.router.state.stack.isEmpty)
    }

    @Test func aWorkingManagerThatFinishesEndsAsFinished() throws {
        let (coordinator, log) = coordinator()
        coordinator.requestCoordination(.work, from: .app)
        #expect(log.ends.isEmpty, "working, so still held")

        try #require(log.managers.last?.object).finish()

        #expect(log.ends == ["work: finished"])
        #expect(coordinator.activeManagerCount == 0)
    }

    @Test func aManagerThatAnswersFinishedOrThrowsEndsAtOnce() {
        let (coordinator, log) = coordinator()

        coordinator.requestCoordination("quick", from: .app)
        coordinator.requestCoordination("throw", from: .app)

        #expect(log.ends == ["quick: finished", "throwing: finished"])
    }

    @Test func aManagerFinishingItselfWhileItStartsEndsOnceWhenStartReturns() {
        let (coordinator, log) = coordinator()
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        coordinator.requestCoordination("flash", from: .app)

        #expect(log.ends == ["flash: finished"])
        #expect(events.filter(\.isEnd) == [.managerEnded("Flash", reason: .finished)])
        #expect(
            events.suffix(2) == [
                .managerEnded("Flash", reason: .finished),
                .handled(CoordinationRequest("flash"), from: .app, manager: "Flash", coordinator: "root"),
            ], "the end is reported within the request that started it")
    }

    // MARK: - Dismissed

    @Test func goingBackEndsTheManagerAsDismissedAfterItsModuleLeft() throws {
        let (coordinator, log) = coordinator()
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination(.showDetail, payload: ["module": "detail"], from: "list")
        events.removeAll()

        try coordinator.back()

        #expect(log.ends == ["detail: dismissed"])
        #expect(events == [.removed("detail"), .managerEnded("Detail", reason: .dismissed)])
    }

    @Test func aManagerWithTwoModulesEndsWhenTheLastOfThemLeaves() throws {
        let (coordinator, log) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination("pair", from: "list")
        #expect(coordinator.router.state.stack == ["list", "first", "second"])

        try coordinator.back()
        #expect(log.ends.isEmpty, "'first' still holds the manager")
        try coordinator.back()

        #expect(log.ends == ["pair: dismissed"])
    }

    @Test func dismissingAModalEndsEachOfItsManagersOnceInOrder() throws {
        let (coordinator, log) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination(.showDetail, payload: ["module": "sheet", "style": "modal"], from: "list")
        coordinator.requestCoordination("pair", from: "sheet")

        try coordinator.dismiss()

        #expect(log.ends == ["sheet: dismissed", "pair: dismissed"])
        #expect(coordinator.router.state.top == "list")
    }

    @Test func backToRootEndsEveryManagerItPops() throws {
        let (coordinator, log) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination(.showDetail, payload: ["module": "a"], from: "list")
        coordinator.requestCoordination(.showDetail, payload: ["module": "b"], from: "a")

        try coordinator.backToRoot()

        #expect(log.ends == ["a: dismissed", "b: dismissed"])
    }

    @Test func aNewRootDismissesTheManagersItReplacesButNotItsOwn() {
        let (coordinator, log) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination(.showDetail, payload: ["module": "sheet", "style": "modal"], from: "list")

        coordinator.requestCoordination(.showList, payload: ["module": "home", "style": "root"], from: "sheet")

        #expect(log.ends == ["sheet: dismissed", "list: dismissed"], "in the order they were removed")
        #expect(coordinator.router.state.stack == ["home"])
    }

    // MARK: - Coordinator finished

    @Test func aChildFlowFinishingEndsTheManagersItHeld() {
        let (parent, log) = coordinator()
        var events: [FlowEvent] = []
        parent.onEvent = { events.append($0) }
        parent.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .modal)
        child.requestCoordination(.showDetail, payload: ["module": "page"], from: .app)
        child.requestCoordination(.work, from: "page")
        events.removeAll()

        child.finish()

        #expect(log.ends == ["work: its coordinator finished", "page: its coordinator finished"])
        #expect(
            events == [
                .childFinished("child", result: .completed(.null)), .removed("page"),
                .managerEnded("Work", reason: .coordinatorFinished),
                .managerEnded("Detail", reason: .coordinatorFinished),
            ])
    }

    @Test func dismissingAChildFlowEndsItsScreensManagersAsDismissedAndItsWorkersAsCoordinatorFinished() throws {
        let (parent, log) = coordinator()
        parent.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .modal)
        child.requestCoordination(.showDetail, payload: ["module": "page"], from: .app)
        child.requestCoordination(.work, from: "page")

        try parent.dismiss()

        #expect(log.ends == ["page: dismissed", "work: its coordinator finished"])
        #expect(child.result == .cancelled)
    }

    @Test func stoppingEndsTheWorkingManagersOfTheTreeAndKeepsThePresentedOnes() {
        let (parent, log) = coordinator()
        parent.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        parent.requestCoordination(.work, from: "list")
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .tab("Child"))
        child.requestCoordination(.work, from: .app)

        parent.stop()
        parent.stop()

        #expect(log.ends == ["work: its coordinator finished", "work: its coordinator finished"])
        #expect(parent.activeManagerCount == 1, "the list's manager lives while the list is shown")
    }

    // MARK: - Names

    @Test func endsNameTheManagerAsRoutedWhileTracedElseByItsType() throws {
        let (coordinator, _) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination(.showDetail, payload: ["module": "untraced"], from: "list")
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        coordinator.requestCoordination(.showDetail, payload: ["module": "traced"], from: "untraced")

        try coordinator.back()
        try coordinator.back()

        #expect(
            events.filter(\.isEnd).map(\.description) == [
                "ended Detail: dismissed", "ended PresentingManager: dismissed",
            ])
    }
}

extension FlowEvent {
    var isEnd: Bool {
        if case .managerEnded = self { return true }
        return false
    }
}
