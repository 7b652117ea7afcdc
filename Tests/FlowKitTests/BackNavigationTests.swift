import FlowKit
import Testing

/// `backToRoot()` and `back(to:)`: popping several screens at once, on whichever stack is visible.
@MainActor
struct BackNavigationTests {
    private func coordinator(showing modules: [String]) -> (BaseFlowCoordinator, Log) {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self)
        ])
        for module in modules {
            coordinator.requestCoordination(.showList, payload: ["module": .string(module)], from: .app)
        }
        return (coordinator, log)
    }

    @Test func backToRootLeavesTheFirstScreenAndReleasesTheOthersManagers() throws {
        let (coordinator, log) = coordinator(showing: ["home", "list", "detail"])

        try coordinator.backToRoot()

        #expect(coordinator.router.state.stack == ["home"])
        #expect(log.managers.map { $0.object == nil } == [false, true, true])
        #expect(throws: FlowError("nothing to go back to: 'home' is already there")) { try coordinator.backToRoot() }
    }

    @Test func backToAModuleStopsAtItsTopmostInstance() throws {
        let (coordinator, _) = coordinator(showing: ["home", "list", "detail", "list", "detail"])

        try coordinator.back(to: "list")

        #expect(coordinator.router.state.stack == ["home", "list", "detail", "list"])
        #expect(throws: FlowError("nothing to go back to: 'list' is already there")) {
            try coordinator.back(to: "list")
        }
        #expect(throws: FlowError("'about' is not on the visible stack (home > list > detail > list)")) {
            try coordinator.back(to: "about")
        }
    }

    @Test func backActsOnTheVisibleModalOnly() throws {
        let (coordinator, _) = coordinator(showing: ["home", "list"])
        coordinator.requestCoordination(.showList, payload: ["module": "form", "style": "modal"], from: .app)
        coordinator.requestCoordination(.showList, payload: ["module": "step2"], from: "form")

        try coordinator.backToRoot()

        #expect(coordinator.router.state.modals == [["form"]])
        #expect(coordinator.router.state.stack == ["home", "list"])
    }

    @Test func backPastAnInlineChildsScreensCancelsIt() throws {
        let (coordinator, _) = coordinator(showing: ["home"])
        let child = BaseFlowCoordinator(name: "wizard")
        var result: FlowResult?
        coordinator.openChild(child, style: .inline) { result = $0 }
        child.requestCoordination(.showList, payload: ["module": "step1"], from: .app)
        child.requestCoordination(.showList, payload: ["module": "step2"], from: "step1")

        try coordinator.back(to: "home")

        #expect(result == .cancelled)
        #expect(coordinator.children.isEmpty)
    }
}
