import FlowKit
import Testing

/// `FlowManager.task(_:)`: async work that ends with its manager, and the `.working` pattern that presents
/// from it. The tests wait on the managers' own signals, never on time.
@MainActor
struct ManagerTaskTests {
    private func coordinator() -> (BaseFlowCoordinator, Log, Gate) {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute("load"): route("Loader", AwaitingManager.self),
            RequestRoute("listen"): route("Listener", ListeningManager.self),
            RequestRoute("fail"): route("Failing", FailingTaskManager.self),
        ])
        let gate = Gate()
        coordinator.setDependency(.gate, gate)
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        return (coordinator, log, gate)
    }

    @Test func aTaskIsCancelledWhenItsManagerIsDismissedMidAwait() async throws {
        let (coordinator, log, gate) = coordinator()
        coordinator.requestCoordination("listen", from: "list")
        #expect(await gate.next() == "listening")
        gate.feed("first")
        #expect(await gate.next() == "showing first")
        let screen = try #require(coordinator.router.top)
        #expect(screen.content == "first")

        try coordinator.back()

        #expect(log.ends == ["listener: dismissed"])
        #expect(await gate.next() == "cancelled")
        gate.feed("too late")
        #expect(screen.content == "first", "the cancelled task shows nothing more")
    }

    @Test func aWorkingManagerPresentsFromItsTaskAndThenLivesWithItsModule() async throws {
        let (coordinator, log, gate) = coordinator()
        #expect(coordinator.requestCoordination("load", from: "list") == .handled(manager: "Loader"))
        #expect(await gate.next() == "awaiting")
        #expect(coordinator.activeManagerCount == 2)

        gate.open(with: "profile")

        #expect(await gate.next() == "presented profile")
        #expect(coordinator.router.state.stack == ["list", "profile"])
        #expect(coordinator.activeManagerCount == 2, "held by its module now, no longer working")
        try coordinator.back()
        #expect(log.ends == ["loader: dismissed"])
        #expect(coordinator.activeManagerCount == 1)
    }

    @Test func aManagerEndedMidAwaitPresentsNothingWhenTheAwaitComesBack() async {
        let (coordinator, log, gate) = coordinator()
        let child = BaseFlowCoordinator(name: "child")
        coordinator.openChild(child, style: .modal)
        child.requestCoordination("load", from: .app)
        #expect(await gate.next() == "awaiting")

        child.finish(with: .cancelled)
        gate.open(with: "profile")

        #expect(log.ends == ["loader: its coordinator finished"])
        #expect(await gate.next() == "refused profile", "the await ignored cancellation, the present did not")
        #expect(coordinator.router.state.stack == ["list"])
        #expect(coordinator.router.state.modals.isEmpty)
    }

    /// The same with nothing else holding the child flow once it finished: the manager's task, which the await
    /// kept from seeing its cancellation, builds its module (`self.module(...)` reads the manager's coordinator)
    /// before `present` refuses. The finished flow was freed under it and that read ended the process; the task
    /// now holds the coordinator until it returns, and the flow goes then.
    @Test func aManagerEndedMidAwaitReachesItsCoordinatorAfterTheFinishedFlowWasLetGo() async {
        let (coordinator, log, gate) = coordinator()
        weak var finished: BaseFlowCoordinator?
        do {
            let child = BaseFlowCoordinator(name: "child")
            finished = child
            coordinator.openChild(child, style: .modal)
            child.requestCoordination("load", from: .app)
        }
        #expect(await gate.next() == "awaiting")

        finished?.finish(with: .cancelled)
        gate.open(with: "profile")

        #expect(log.ends == ["loader: its coordinator finished"])
        #expect(await gate.next() == "refused profile")
        for _ in 0..<1_000 where finished != nil { await Task.yield() }
        #expect(finished == nil, "the flow goes with the task")
        #expect(coordinator.router.state.stack == ["list"])
    }

    @Test func aTaskThatThrowsIsReportedAndFinishesItsWorkingManager() async {
        let (coordinator, log, gate) = coordinator()
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        coordinator.requestCoordination("fail", from: "list")
        #expect(await gate.next() == "awaiting")
        let (ended, didEnd) = AsyncStream<Void>.makeStream()
        coordinator.onEvent = { event in
            events.append(event)
            if case .managerEnded = event { didEnd.yield() }
        }

        gate.open(with: "go")
        var iterator = ended.makeAsyncIterator()
        await iterator.next(isolation: #isolation)

        #expect(log.ends == ["failing: finished"])
        #expect(
            events.suffix(2) == [
                .managerTaskFailed("Failing", error: FlowError("offline")),
                .managerEnded("Failing", reason: .finished),
            ])
        #expect(coordinator.activeManagerCount == 1)
    }

    @Test func aTaskThatThrowsTellsWhoAskedThatTheRequestFailed() async {
        let (coordinator, _, gate) = coordinator()
        var results: [FlowResult] = []
        let (answered, didAnswer) = AsyncStream<Void>.makeStream()
        coordinator.requestCoordination(CoordinationRequest("fail"), from: "list") { result in
            results.append(result)
            didAnswer.yield()
        }
        #expect(await gate.next() == "awaiting")

        gate.open(with: "go")
        var iterator = answered.makeAsyncIterator()
        await iterator.next(isolation: #isolation)

        #expect(results == [.failed(FlowError("offline"))], "not .completed(null): the work failed")
    }

    @Test func anEndedManagerStartsNoTaskAndPresentsNothing() async throws {
        let (coordinator, log, _) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "detail"], from: "list")
        let manager = try #require(log.managers.last?.object)
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        try coordinator.back()
        var ran = false

        let task = manager.task { ran = true }
        await task.value

        #expect(!ran)
        #expect(task.isCancelled)
        #expect(manager.runningTaskCount == 0)
        #expect(!manager.present(manager.module("again"), style: .inline))
        coordinator.present(manager.module("raw"), style: .inline, by: manager)
        #expect(coordinator.router.state.stack == ["list"])
        #expect(events.last == .presentRefused("raw", manager: "PresentingManager"))
        #expect(log.ends == ["detail: dismissed"], "told once, however often it tries")
    }

    @Test func aFinishedTaskLeavesNothingBehind() async throws {
        let (coordinator, log, _) = coordinator()
        coordinator.requestCoordination(.showList, payload: ["module": "detail"], from: "list")
        let manager = try #require(log.managers.last?.object)

        let task = manager.task { await Task.yield() }
        #expect(manager.runningTaskCount == 1)
        await task.value

        #expect(manager.runningTaskCount == 0)
        #expect(!task.isCancelled)
        #expect(log.ends.isEmpty)
    }
}

/// A reload ends the previous generation's background managers, and only those.
@MainActor
struct ReplacedManagerTests {
    @Test func onlyBackgroundManagersThePredicatePicksAreReplaced() async throws {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute(.work): route("Work", WorkingManager.self),
            RequestRoute("listen"): route("Listener", ListeningManager.self),
            RequestRoute("background"): route("Background", BackgroundManager.self),
        ])
        let gate = Gate()
        coordinator.setDependency(.gate, gate)
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination(.work, from: "list")
        coordinator.requestCoordination("listen", from: "list")
        #expect(await gate.next() == "listening")
        let child = BaseFlowCoordinator(name: "child")
        coordinator.openChild(child, style: .tab("Child"))
        child.requestCoordination("background", from: .app)
        #expect(await gate.next() == "listening")
        coordinator.requestCoordination("background", from: .app)
        #expect(await gate.next() == "listening")
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        let replaced = coordinator.replaceBackgroundManagers { !($0 is PresentingManager) }

        #expect(replaced == 2)
        #expect(log.ends == ["background: replaced by a reload", "background: replaced by a reload"])
        #expect(await gate.next() == "cancelled")
        #expect(await gate.next() == "cancelled")
        #expect(
            events.filter(\.isEnd).map(\.description)
                == Array(repeating: "ended BackgroundManager: replaced by a reload", count: 2))
        #expect(coordinator.replaceBackgroundManagers { _ in false } == 0)
        #expect(coordinator.activeManagerCount == 3, "the list, the working manager without a task, the listener")

        // Left waiting on the gate, the listener's task would keep itself, the gate and the coordinator alive
        // in a cycle after the test, which LeakSanitizer reports; ending the feed ends its loop.
        gate.endListening()
        #expect(await gate.next() == "ended")
    }
}
