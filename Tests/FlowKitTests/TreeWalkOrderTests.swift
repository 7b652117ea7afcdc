import FlowKit
import Testing

/// The walks of a coordinator's tree (finishing a flow with the flows inside it, stopping, lifecycle events, the
/// flows a new root abandons, saving) keep a list of where they are rather than a call per level, so that a
/// nesting of thousands of child flows does not run them out of stack. What they do, and in what order, is what
/// the calls did: these orders were read from FlowKit before the change.
@MainActor
struct TreeWalkOrderTests {
    @Test func finishingAFlowFinishesTheFlowsInsideItLastOpenedFirstEachAfterItsOwn() {
        let tree = Tree()

        tree.a.finish(with: .completed("done"))

        #expect(
            tree.log == [
                "stop service of a2", "event child a2 finished: cancelled", "event removed a2",
                "focus a from a2", "result a2 cancelled",
                "stop service of a1x", "event child a1x finished: cancelled", "event removed a1x",
                "focus a1 from a1x", "result a1x cancelled",
                "stop service of a1", "event child a1 finished: cancelled", "event removed a1",
                "focus a from a1", "result a1 cancelled",
                "stop service of a", #"event child a finished: completed "done""#, "event removed a",
                "focus root from a", #"result a completed "done""#,
            ])
        #expect(tree.root.router.state.stack == ["root", "b"])
    }

    /// What a flow's `onResult` changes while the flows around it finish counts for those finished after it: a
    /// listener it gives their parent hears them (after the root's, which hears them too), and a parent it finishes
    /// at once is finished then, and only then: the walk that was finishing it does nothing more to it (it once
    /// finished it a second time, with the walk's own result, when it came back to it).
    @Test func whatAFlowsResultChangesCountsForTheFlowsFinishedAfterIt() {
        let tree = Tree()
        var heardByA: [String] = []
        tree.resultOf["a1x"] = { [unowned tree] in tree.a.onEvent = { heardByA.append("\($0)") } }
        tree.resultOf["a2"] = { [unowned tree] in tree.a.finish(with: .completed("early")) }

        tree.a.finish(with: .completed("late"))

        #expect(
            heardByA == [
                "service LoggingService stopped", "child a1 finished: cancelled", "removed a1",
                "service LoggingService stopped", "removed a",  // its own screen (since 1.4); its finishing is root's
            ])
        #expect(
            tree.log == [
                "stop service of a2", "event child a2 finished: cancelled", "event removed a2", "focus a from a2",
                "result a2 cancelled",
                "stop service of a1x", "event child a1x finished: cancelled", "event removed a1x",
                "focus a1 from a1x", "result a1x cancelled",
                "stop service of a1", "event child a1 finished: cancelled", "event removed a1", "focus a from a1",
                "result a1 cancelled",
                "stop service of a", #"event child a finished: completed "early""#, "event removed a",
                "focus root from a", #"result a completed "early""#,
            ])
        #expect(tree.a.result == .completed("early"))
    }

    @Test func stoppingStopsEachCoordinatorAfterItsChildrenLastOpenedFirst() {
        let tree = Tree()

        tree.root.stop()

        #expect(
            tree.log == [
                "stop service of b", "stop service of a2", "stop service of a1x", "stop service of a1",
                "stop service of a", "stop service of root",
            ])
    }

    @Test func aLifecycleEventReachesEachCoordinatorBeforeItsChildren() {
        let tree = Tree()

        tree.root.send(.didEnterBackground)

        #expect(
            tree.log == [
                "background root", "background a", "background a1", "background a1x", "background a2",
                "background b",
            ])
    }

    @Test func aNewRootFinishesTheFlowsItAbandonsEachAfterTheFlowsInsideIt() {
        let tree = Tree()

        tree.root.present(FlowModule("home", coordination: tree.root), style: .root, by: nil)

        #expect(
            tree.log == [
                "event presented home (root)", "event removed a2", "event removed a1", "event removed a1x",
                "event removed root", "event removed a", "event removed b",
                "stop service of a1x", "event child a1x finished: cancelled", "focus a1 from a1x",
                "result a1x cancelled",
                "stop service of a1", "event child a1 finished: cancelled", "focus a from a1", "result a1 cancelled",
                "stop service of a2", "event child a2 finished: cancelled", "focus a from a2", "result a2 cancelled",
                "stop service of a", "event child a finished: cancelled", "focus root from a", "result a cancelled",
                "stop service of b", "event child b finished: cancelled", "focus root from b", "result b cancelled",
            ])
        #expect(tree.root.children.isEmpty)
    }

    @Test func aSnapshotListsTheOpenFlowsEachBeforeTheFlowsInsideIt() {
        let tree = Tree()

        let paths = tree.root.snapshot().children.map(\.path)

        #expect(paths == [["a"], ["a", "a1"], ["a", "a1", "a1x"], ["a", "a2"], ["b"]])
    }
}

/// A root showing `root`, with child flows `a` and `b` (inline), then `a`'s: `a1` (a modal, holding `a1x`, inline)
/// and `a2` (a tab). Each shows a module of its name and runs a service; what each does is logged.
@MainActor
private final class Tree {
    let root: BaseFlowCoordinator
    let a: BaseFlowCoordinator
    private(set) var log: [String] = []

    init() {
        let services = ["root", "a", "a1", "a1x", "a2", "b"].map { LoggingService($0) }
        root = BaseFlowCoordinator(name: "root", services: [services[0]])
        root.isRestorable = true
        root.start()
        root.present(FlowModule("root", coordination: root), style: .inline, by: nil)
        let a1 = BaseFlowCoordinator(name: "a1", services: [services[2]])
        let a1x = BaseFlowCoordinator(name: "a1x", services: [services[3]])
        let a2 = BaseFlowCoordinator(name: "a2", services: [services[4]])
        let b = BaseFlowCoordinator(name: "b", services: [services[5]])
        a = BaseFlowCoordinator(name: "a", services: [services[1]])
        open(a, in: root, style: .inline)
        open(b, in: root, style: .inline)
        open(a1, in: a, style: .modal)
        open(a1x, in: a1, style: .inline)
        open(a2, in: a, style: .tab("A2"))
        for service in services { service.log = { [unowned self] in self.log.append($0) } }
        root.onEvent = { [unowned self] event in
            switch event {
            case .childFinished, .removed, .presented: self.log.append("event \(event)")
            default: break
            }
        }
        for coordinator in [root, a, a1, a1x, a2, b] {
            coordinator.onRegainFocus = { [unowned self, unowned coordinator] child in
                self.log.append("focus \(coordinator.name) from \(child.name)")
            }
        }
    }

    /// Run after a flow's result is logged, by the flow's name.
    var resultOf: [String: () -> Void] = [:]

    private func open(_ child: BaseFlowCoordinator, in parent: BaseFlowCoordinator, style: PresentationStyle) {
        let name = child.name
        parent.openChild(child, style: style) { [unowned self] result in
            self.log.append("result \(name) \(result)")
            self.resultOf[name]?()
        }
        child.present(FlowModule(Coordinated(child.name), coordination: child), style: .inline, by: nil)
    }
}

/// Logs being stopped and going to the background, as `stop service of NAME` and `background NAME`.
@MainActor
private final class LoggingService: CoordinatorServiceLifeCycleProtocol {
    let name: String
    var log: (String) -> Void = { _ in }

    init(_ name: String) {
        self.name = name
    }

    func start(with coordinator: any FlowCoordinator) {}
    func stop() { log("stop service of \(name)") }
    func willEnterBackground() {}
    func didEnterBackground() { log("background \(name)") }
    func willEnterForeground() {}
    func didBecomeActive() {}
    func willTerminate() {}
}
