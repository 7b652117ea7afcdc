import Testing

@testable import FlowKit

/// Every listener from an event's coordinator up to the root hears it, outermost first, as `onEvent` says: a
/// plugin's listener on its child flow no longer takes the flow's events from the host's listener on the root.
/// Only the nearest listener heard an event before.
@MainActor
struct ListenerChainTests {
    @Test func aListenerOnTheRootAndOneOnAChildBothHearTheChildsEventsRootFirst() {
        let root = BaseFlowCoordinator(name: "app")
        let child = BaseFlowCoordinator(name: "child")
        var heard: [String] = []
        root.onEventToKeep = { heard.append("root: \($0)") }
        root.openChild(child, style: .modal, onResult: nil)
        child.onEvent = { heard.append("child: \($0)") }

        child.present(FlowModule("page", coordination: child), style: .inline, by: nil)

        #expect(
            heard == [
                "root: opened child child (modal)", "root: presented page (inline)", "child: presented page (inline)",
            ])
    }

    /// A child's listener that answers an event with a screen of its own: the host's listener records the event
    /// before the answer's, which it would hear first were the nearest listener told first.
    @Test func aListenerThatReactsToAnEventIsHeardAfterTheEventAbove() {
        let root = BaseFlowCoordinator(name: "app")
        let child = BaseFlowCoordinator(name: "child")
        var recorded: [String] = []
        root.openChild(child, style: .modal, onResult: nil)
        root.onEvent = { recorded.append($0.description) }
        child.onEvent = { [unowned child] event in
            if case .presented("page", _) = event {
                child.present(FlowModule("reply", coordination: child), style: .inline, by: nil)
            }
        }

        child.present(FlowModule("page", coordination: child), style: .inline, by: nil)

        #expect(recorded == ["presented page (inline)", "presented reply (inline)"])
    }

    /// Listeners set, replaced and removed at each level of three, in turn: each event reaches exactly the
    /// listeners there are then, outermost first.
    @Test func settingReplacingAndRemovingListenersAtEachLevelRetargetsTheChain() {
        let root = BaseFlowCoordinator(name: "app")
        let child = BaseFlowCoordinator(name: "child")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        root.openChild(child, style: .inline, onResult: nil)
        child.openChild(grandchild, style: .inline, onResult: nil)
        var heard: [[String]] = []
        var step: [String] = []
        func listen(_ level: BaseFlowCoordinator, as label: String) {
            level.onEvent = { _ in step.append(label) }
        }
        func present(_ name: Coordinated) {
            step = []
            grandchild.present(FlowModule(name, coordination: grandchild), style: .inline, by: nil)
            heard.append(step)
        }

        listen(grandchild, as: "grandchild")
        present("a")
        listen(root, as: "root")
        present("b")
        listen(child, as: "child")
        present("c")
        listen(root, as: "new root")  // replaced
        present("d")
        listen(child, as: "new child")  // replaced
        present("e")
        child.onEvent = nil
        present("f")
        grandchild.onEventToKeep = nil
        present("g")
        root.onEvent = nil
        present("h")
        listen(child, as: "child again")
        present("i")

        #expect(
            heard == [
                ["grandchild"], ["root", "grandchild"], ["root", "child", "grandchild"],
                ["new root", "child", "grandchild"], ["new root", "new child", "grandchild"],
                ["new root", "grandchild"], ["new root"], [], ["child again"],
            ])
    }

    /// A listener that wraps the one it replaces, reading ``BaseFlowCoordinator/onEvent``, gets that listener
    /// only: the root's listener hears each event once, not once more through the wrapped one.
    @Test func aListenerThatWrapsTheOneItReplacesCallsOnlyThatOne() {
        let root = BaseFlowCoordinator(name: "app")
        let child = BaseFlowCoordinator(name: "child")
        root.openChild(child, style: .inline, onResult: nil)
        var heard: [String] = []
        root.onEvent = { heard.append("root: \($0)") }
        child.onEvent = { heard.append("log: \($0)") }
        let logged = child.onEvent
        child.onEvent = { event in
            heard.append("wrapper: \(event)")
            logged?(event)
        }

        child.present(FlowModule("page", coordination: child), style: .inline, by: nil)

        #expect(
            heard == [
                "root: presented page (inline)", "wrapper: presented page (inline)", "log: presented page (inline)",
            ])
    }

    /// A subtree whose child listens, opened under a listening root, hands its events up to the root; finished,
    /// it hands them to nobody above.
    @Test func aListeningSubtreeOpenedUnderAListenerHandsEventsUpUntilItFinishes() {
        let root = BaseFlowCoordinator(name: "app")
        let child = BaseFlowCoordinator(name: "child")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        var heard: [String] = []
        root.onEvent = { heard.append("root: \($0)") }
        child.openChild(grandchild, style: .inline, onResult: nil)
        grandchild.onEvent = { heard.append("grandchild: \($0)") }

        root.openChild(child, style: .inline, onResult: nil)
        grandchild.present(FlowModule("inside", coordination: grandchild), style: .inline, by: nil)
        #expect(
            heard == [
                "root: opened child child (inline)", "root: presented inside (inline)",
                "grandchild: presented inside (inline)",
            ])
        child.finish(with: .cancelled)
        heard.removeAll()
        grandchild.present(FlowModule("alone", coordination: grandchild), style: .inline, by: nil)

        #expect(heard == ["grandchild: presented alone (inline)"])
    }

    /// A listener at every level of a nesting 2,000 deep: opening it links each level about twice, as with one
    /// listener; an event of the deepest reaches every listener, outermost first; replacing the root's listener or
    /// setting one above a listening level tells no level below.
    @Test func listenersAtEveryLevelOfADeepNestingStayLinkedInLinearTime() {
        let depth = 2_000
        let root = BaseFlowCoordinator(name: "app")
        var order: [Int] = []
        root.onEvent = { _ in order.append(0) }
        let before = BaseFlowCoordinator.listenerLinks

        var deepest = root
        for level in 1...depth {
            let next = BaseFlowCoordinator(name: "level")
            deepest.openChild(next, style: .inline, onResult: nil)
            next.onEvent = { _ in order.append(level) }
            deepest = next
        }
        #expect(BaseFlowCoordinator.listenerLinks - before <= 2 * depth)

        order.removeAll()
        deepest.present(FlowModule("page", coordination: deepest), style: .inline, by: nil)
        #expect(order == Array(0...depth))

        let linked = BaseFlowCoordinator.listenerLinks
        var newRoot: [String] = []
        root.onEventToKeep = { newRoot.append($0.description) }
        #expect(BaseFlowCoordinator.listenerLinks == linked, "a listener replaced keeps its place in the chain")
        deepest.present(FlowModule("again", coordination: deepest), style: .inline, by: nil)
        #expect(newRoot == ["presented again (inline)"])
    }
}

/// A child flow's listener hears its own screens go and its own managers end, whichever coordinator the person
/// went back or dismissed through, and when the flow finishes: they were sent to the listeners of the coordinator
/// the person acted on, or of the parent, so that a listener keeping a child's shown modules went stale.
@MainActor
struct ChildListenerHearsItsOwnEndsTests {
    private func opened(_ style: PresentationStyle) -> (root: BaseFlowCoordinator, child: BaseFlowCoordinator) {
        let root = BaseFlowCoordinator(name: "app")
        root.start()
        let child = BaseFlowCoordinator(name: "child", mapping: [RequestRoute("page"): route("Page", PageManager.self)])
        root.openChild(child, style: style, onResult: nil)
        return (root, child)
    }

    @Test func dismissedThroughTheRoot() throws {
        let (root, child) = opened(.modal)
        var heard: [String] = []
        child.onEvent = { heard.append($0.description) }
        child.requestCoordination(CoordinationRequest("page"), from: "start")
        heard = []

        try root.dismiss()

        #expect(heard.contains("removed page"), "\(heard)")
        #expect(heard.contains { $0.hasPrefix("ended Page") }, "\(heard)")
    }

    @Test func wentBackFromThroughTheRoot() throws {
        let (root, child) = opened(.modal)
        var heard: [String] = []
        child.onEvent = { heard.append($0.description) }
        child.requestCoordination(CoordinationRequest("page"), from: "start")
        heard = []

        try root.back()

        #expect(heard.contains("removed page"), "\(heard)")
        #expect(heard.contains { $0.hasPrefix("ended Page") }, "\(heard)")
    }

    @Test func finished() {
        let (root, child) = opened(.inline)
        var heard: [String] = []
        var rootHeard: [String] = []
        root.onEvent = { rootHeard.append($0.description) }
        child.onEvent = { heard.append($0.description) }
        child.requestCoordination(CoordinationRequest("page"), from: "start")
        heard = []
        rootHeard = []

        child.finish(with: .completed(.null))

        #expect(heard.contains("removed page"), "\(heard)")
        #expect(heard.contains { $0.hasPrefix("ended Page") }, "\(heard)")
        #expect(!heard.contains { $0.hasPrefix("child child finished") }, "its finishing is its parent's event")
        #expect(rootHeard.first?.hasPrefix("child child finished") == true, "\(rootHeard)")
        #expect(rootHeard.contains("removed page"), "the root hears them as before: \(rootHeard)")
    }
}

/// Presents `page` inline.
@MainActor
private final class PageManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module("page"), .inline)
    }
}
