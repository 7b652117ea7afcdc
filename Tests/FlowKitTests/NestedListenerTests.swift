import Testing

@testable import FlowKit

/// An event goes to the nearest listener, its coordinator's or an ancestor's, which each coordinator knows
/// rather than looks for, and on from it to the listeners above: a plugin can nest thousands of child flows under the host's listener, and walking up
/// from each event made opening 16,000 of them take 38 s in a debug build. Which listener hears what is unchanged
/// as listeners are set, changed and removed, before or after the children open.
@MainActor
struct NestedListenerTests {
    /// Each level of a nesting under a listener opens the next and shows a screen in it: the listener hears every
    /// event, and the coordinators learn which ancestor listens once each, as they are opened, rather than an
    /// event walking up each level (what counted depth²/2 here, 2 million, before): each event asks one ancestor
    /// for its listener, at most.
    @Test func eventsThousandsOfLevelsDeepReachTheListenerWithoutAWalkUp() {
        let depth = 2_000
        let root = BaseFlowCoordinator(name: "app")
        var heard = 0
        root.onEvent = { _ in heard += 1 }
        let before = BaseFlowCoordinator.listenerLinks
        let asked = BaseFlowCoordinator.listenerAncestorsAsked

        var parent = root
        for _ in 0..<depth {
            let level = BaseFlowCoordinator(name: "level")
            parent.openChild(level, style: .inline, onResult: nil)
            level.present(FlowModule("page", coordination: level), style: .inline, by: nil)
            parent = level
        }

        #expect(heard == 2 * depth, "each level's opening and its screen")
        #expect(BaseFlowCoordinator.listenerAncestorsAsked - asked <= heard, "an ancestor asked per event, at most")
        #expect(BaseFlowCoordinator.listenerLinks - before <= 2 * depth)
        #expect(parent.listeningAncestor === root)
    }

    /// A listener set above a nesting after it opened, or removed, is what its levels hear from: telling them costs
    /// a link per level, once.
    @Test func aListenerSetOverANestingIsToldToEachLevelOnce() {
        let depth = 2_000
        let root = BaseFlowCoordinator(name: "app")
        var deepest = root
        for _ in 0..<depth {
            let level = BaseFlowCoordinator(name: "level")
            deepest.openChild(level, style: .inline, onResult: nil)
            deepest = level
        }
        var heard: [String] = []
        let before = BaseFlowCoordinator.listenerLinks

        root.onEvent = { heard.append($0.description) }
        deepest.present(FlowModule("page", coordination: deepest), style: .inline, by: nil)
        root.onEvent = nil
        deepest.present(FlowModule("unheard", coordination: deepest), style: .inline, by: nil)

        #expect(heard == ["presented page (inline)"])
        #expect(BaseFlowCoordinator.listenerLinks - before == 2 * depth)
    }

    /// A nesting built from the inside out, each level opened in the next one out, then the outermost under a
    /// listener: each level is told once as it is opened and once as the outermost is. Each level's opening told every
    /// level below it again, though none of them had a listener to learn (what counted depth²/2 here, 2 million).
    @Test func aNestingBuiltFromTheInsideOutLearnsItsListenerOncePerLevel() {
        let depth = 2_000
        let root = BaseFlowCoordinator(name: "app")
        root.onEvent = { _ in }
        let before = BaseFlowCoordinator.listenerLinks

        let deepest = BaseFlowCoordinator(name: "level")
        var outermost = deepest
        for _ in 1..<depth {
            let level = BaseFlowCoordinator(name: "level")
            level.openChild(outermost, style: .inline, onResult: nil)
            outermost = level
        }
        root.openChild(outermost, style: .inline, onResult: nil)

        #expect(BaseFlowCoordinator.listenerLinks - before <= 2 * depth)
        #expect(deepest.listeningAncestor === root)
    }

    /// A listener replaced by another tells the levels below nothing new: none of them is walked.
    @Test func aListenerReplacedTellsTheLevelsBelowNothing() {
        let depth = 2_000
        let root = BaseFlowCoordinator(name: "app")
        var deepest = root
        for _ in 0..<depth {
            let level = BaseFlowCoordinator(name: "level")
            deepest.openChild(level, style: .inline, onResult: nil)
            deepest = level
        }
        root.onEvent = { _ in }
        let before = BaseFlowCoordinator.listenerLinks

        root.onEvent = { _ in }
        root.onEventToKeep = { _ in }

        #expect(BaseFlowCoordinator.listenerLinks == before)
        #expect(deepest.listeningAncestor === root)
    }

    /// The listeners of a coordinator and its ancestors each hear its events, outermost first, as they are set,
    /// changed and removed (``ListenerChainTests`` for more).
    @Test func theListenersAboveHearAsListenersAreSetChangedAndRemoved() {
        let root = BaseFlowCoordinator(name: "app")
        let child = BaseFlowCoordinator(name: "child")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        root.openChild(child, style: .inline, onResult: nil)
        child.openChild(grandchild, style: .inline, onResult: nil)
        var heard: [String] = []
        func show(_ name: Coordinated) {
            grandchild.present(FlowModule(name, coordination: grandchild), style: .inline, by: nil)
        }

        show("nobody")
        root.onEvent = { heard.append("root: \($0)") }
        show("a")
        child.onEventToKeep = { heard.append("child: \($0)") }
        show("b")
        root.onEvent = { heard.append("new root: \($0)") }
        show("c")
        child.onEventToKeep = nil
        show("d")
        grandchild.onEvent = { heard.append("grandchild: \($0)") }
        show("e")
        grandchild.onEvent = nil
        grandchild.finish(with: .cancelled)
        child.present(FlowModule("f", coordination: child), style: .inline, by: nil)

        #expect(
            heard == [
                "root: presented a (inline)", "root: presented b (inline)", "child: presented b (inline)",
                "new root: presented c (inline)", "child: presented c (inline)", "new root: presented d (inline)",
                "new root: presented e (inline)", "grandchild: presented e (inline)",
                "new root: child grandchild finished: cancelled", "new root: removed nobody", "new root: removed a",
                "new root: removed b", "new root: removed c", "new root: removed d", "new root: removed e",
                "new root: presented f (inline)",
            ])
    }

    /// A coordinator with children of its own, opened under a listener, tells them which ancestor listens; one
    /// that finished hears nothing of the tree it left.
    @Test func aSubtreeOpenedUnderAListenerLearnsItAndOneThatFinishedForgetsIt() {
        let root = BaseFlowCoordinator(name: "app")
        var heard: [String] = []
        root.onEvent = { heard.append($0.description) }
        let child = BaseFlowCoordinator(name: "child")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        child.openChild(grandchild, style: .inline, onResult: nil)
        #expect(grandchild.listeningAncestor == nil)

        root.openChild(child, style: .inline, onResult: nil)
        #expect(grandchild.listeningAncestor === root)
        child.present(FlowModule("inside", coordination: child), style: .inline, by: nil)
        child.finish(with: .cancelled)
        heard.removeAll()
        child.present(FlowModule("alone", coordination: child), style: .inline, by: nil)

        #expect(heard.isEmpty)
        #expect(child.listeningAncestor == nil)
        #expect(grandchild.listeningAncestor == nil, "finished with its parent")
    }
}
