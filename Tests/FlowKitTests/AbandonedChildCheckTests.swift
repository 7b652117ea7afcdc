import Testing

@testable import FlowKit

/// Opening a child flow no longer makes the next screen to go look at every open child flow for those it
/// abandoned: a new child has shown nothing, so none can have been. A reopened child that shows nothing still is.
@MainActor
struct AbandonedChildCheckTests {
    /// Thousands of steps each opening a flow that shows a screen, each followed by a screen shown and taken away
    /// over it: 4,000 of them took 2.3 s in a debug build, each removal looking at every child opened so far (what
    /// counted depth²/2 here, 2 million, before).
    @Test func aScreenGoingAfterAFlowOpenedLooksAtNoChildFlow() throws {
        let count = 2_000
        let root = BaseFlowCoordinator(name: "app")
        root.present(FlowModule("home", coordination: root), style: .inline, by: nil)
        var finished = 0
        let before = BaseFlowCoordinator.abandonmentChecks

        for index in 0..<count {
            let child = BaseFlowCoordinator(name: "child\(index)")
            root.openChild(child, style: .inline) { _ in finished += 1 }
            child.present(FlowModule("step", coordination: child), style: .inline, by: nil)
            child.present(FlowModule("detail", coordination: child), style: .inline, by: nil)
            try root.back()
        }

        #expect(BaseFlowCoordinator.abandonmentChecks - before == 0)
        #expect(finished == 0)
        #expect(root.children.count == count)
        #expect(root.router.state.stack.count == 1 + count)
    }

    /// A reopened child is what a new one is until it shows a screen: one waiting on async work before it shows
    /// anything is not finished by a screen of its parent's going. Once it shows one, that one going abandons it.
    @Test func aReopenedChildIsAbandonedOnlyOnceItShowedAScreenAgain() throws {
        let root = BaseFlowCoordinator(name: "app")
        root.present(FlowModule("home", coordination: root), style: .inline, by: nil)
        let child = BaseFlowCoordinator(name: "child")
        var results: [FlowResult] = []
        root.openChild(child, style: .inline) { results.append($0) }
        child.present(FlowModule("step", coordination: child), style: .inline, by: nil)
        try root.back()
        #expect(results == [.cancelled], "its last screen went")

        root.openChild(child, style: .inline) { results.append($0) }
        root.present(FlowModule("detail", coordination: root), style: .inline, by: nil)
        try root.back()
        #expect(results == [.cancelled], "it has shown nothing since it was reopened: not abandoned")
        #expect(root.children.map(\.name) == ["child"])

        child.present(FlowModule("again", coordination: child), style: .inline, by: nil)
        try root.back()
        #expect(results == [.cancelled, .cancelled], "its screen shown since went")
        #expect(root.children.isEmpty)
    }
}
