import FlowKit
import Testing

@MainActor
struct ChildCoordinatorTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.showList): route("List", PresentingManager.self)
    ]

    @Test func childFinishCallsDidRegainFocusAndRemovesItsScreens() {
        let parent = BaseFlowCoordinator(mapping: mapping)
        parent.start()
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        var regained: [String] = []
        parent.onRegainFocus = { regained.append($0.name) }
        let child = BaseFlowCoordinator(name: "signup")
        parent.openChild(child, style: .modal)
        child.requestCoordination(.showList, payload: ["module": "signupForm"], from: .app)
        #expect(parent.router.state.top == "signupForm")

        child.finish()

        #expect(regained == ["signup"])
        #expect(parent.children.isEmpty)
        #expect(parent.router.state.top == "home")
        #expect(parent.router.state.modals.isEmpty)
    }

    /// A coordinator's ancestor opened as its child would make the tree a cycle: nothing is opened.
    @Test func openingItselfOrAnAncestorAsAChildDoesNothing() {
        let root = BaseFlowCoordinator(name: "root", mapping: mapping)
        root.start()
        let child = BaseFlowCoordinator(name: "child")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        root.openChild(child, style: .inline)
        child.openChild(grandchild, style: .inline)

        grandchild.openChild(root, style: .modal)
        grandchild.openChild(child, style: .modal)
        grandchild.openChild(grandchild, style: .modal)

        #expect(grandchild.children.isEmpty)
        #expect(root.parent == nil && child.parent === root)
        #expect(grandchild.parent === child)
        #expect(root.router.state.modals.isEmpty)
    }

    @Test func finishingAChildCleansItsGrandchildren() {
        let parent = BaseFlowCoordinator(mapping: mapping)
        parent.start()
        let child = BaseFlowCoordinator(name: "child")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        parent.openChild(child, style: .tab("Child"))
        child.openChild(grandchild, style: .modal)
        grandchild.requestCoordination(.showList, payload: ["module": "deep"], from: .app)
        var childRegained: [String] = []
        child.onRegainFocus = { childRegained.append($0.name) }

        child.finish()

        #expect(childRegained == ["grandchild"])
        #expect(child.children.isEmpty)
        #expect(!grandchild.isRunning)
        #expect(parent.router.state == PresentationState(stack: [], tabs: [], selectedTab: nil, modals: [], top: nil))
    }

    @Test func onFinishRunsOnceAfterTheParentRegainsFocus() {
        let parent = BaseFlowCoordinator()
        var order: [String] = []
        parent.onRegainFocus = { _ in order.append("didRegainFocus") }
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .modal) { order.append("onFinish") }

        child.finish()
        child.finish()

        #expect(order == ["didRegainFocus", "onFinish"])
    }

    @Test func openingTheSameChildTwiceIsANoOp() {
        let parent = BaseFlowCoordinator()
        let child = BaseFlowCoordinator(name: "child")

        parent.openChild(child, style: .tab("One"))
        parent.openChild(child, style: .tab("One"))

        #expect(parent.children.count == 1)
        #expect(parent.router.state.tabs.count == 1)
    }

    @Test func childInlinePushesOntoTheParentsStack() {
        let parent = BaseFlowCoordinator(mapping: mapping)
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        let child = BaseFlowCoordinator(name: "wizard")
        parent.openChild(child, style: .inline)

        child.requestCoordination(.showList, payload: ["module": "step1"], from: .app)

        #expect(parent.router.state.stack == ["home", "step1"])
    }

    @Test func goingBackPastAnInlineChildsLastScreenFinishesIt() throws {
        let parent = BaseFlowCoordinator(mapping: mapping)
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        var regained = 0
        parent.onRegainFocus = { _ in regained += 1 }
        let child = BaseFlowCoordinator(name: "wizard")
        parent.openChild(child, style: .inline)
        child.requestCoordination(.showList, payload: ["module": "step1"], from: .app)

        try parent.back()

        #expect(regained == 1)
        #expect(parent.children.isEmpty)
    }

    @Test func dismissingAModalChildFinishesIt() throws {
        let parent = BaseFlowCoordinator(mapping: mapping)
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        let child = BaseFlowCoordinator(name: "modalFlow")
        parent.openChild(child, style: .modal)
        child.requestCoordination(.showList, payload: ["module": "sheet"], from: .app)

        try parent.dismiss()

        #expect(parent.children.isEmpty)
        #expect(parent.router.state.top == "home")
    }

    @Test func dependenciesPropagateToChildren() {
        let parent = BaseFlowCoordinator()
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .inline)

        parent.setDependency(.store, "the store")

        #expect(child.dependencies[TypedDependencyKey<String>(.store)] == "the store")
    }
}
