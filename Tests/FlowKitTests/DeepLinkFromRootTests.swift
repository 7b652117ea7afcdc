import FlowKit
import Testing

/// A deep link that starts from the app's root (`open(deepLink:fromRoot:)`, FlowKit 1.8): the modals open are
/// dismissed, and its first step is sent by the root coordinator, rather than by the module on top of a modal.
@MainActor
struct DeepLinkFromRootTests {
    /// A coordinator showing `list`, and over it a modal showing `form`.
    private func coordinatorWithAModalOpen() -> BaseFlowCoordinator {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute(.showDetail): route("Detail", PresentingManager.self),
        ])
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination(.showDetail, payload: ["module": "form", "style": "modal"], from: "list")
        return coordinator
    }

    private let detail = CoordinationRequest(.showDetail, payload: ["module": "detail"])

    @Test func aLinkFromWhereThePersonIsLandsOnTheModalOpen() {
        let coordinator = coordinatorWithAModalOpen()

        let result = coordinator.open(deepLink: [detail], fromRoot: false)

        #expect(result.isComplete)
        #expect(coordinator.router.state.stack == ["list"])
        #expect(coordinator.router.state.modals == [["form", "detail"]])
    }

    @Test func aLinkFromTheRootDismissesTheModalsAndSendsItsFirstStepFromTheRoot() {
        let coordinator = coordinatorWithAModalOpen()
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        let more = CoordinationRequest(.showDetail, payload: ["module": "more"])
        let result = coordinator.open(deepLink: [detail, more], fromRoot: true)

        #expect(result.description == "deep link applied: 2 of 2 steps")
        #expect(coordinator.router.state.modals.isEmpty)
        #expect(coordinator.router.state.stack == ["list", "detail", "more"])
        #expect(events.first == .removed("form"), "the modal goes before the first step is sent")
        let senders = events.compactMap { event -> Coordinated? in
            guard case .handling(_, let from, _, _) = event else { return nil }
            return from
        }
        #expect(senders == [.deepLink, "detail"], "the later steps come from the visible module, as in any link")
    }

    @Test func aModalChildFlowFinishesCancelledAndTheFirstStepResetsTheMainStack() throws {
        let parent = BaseFlowCoordinator(mapping: [RequestRoute(.showList): route("List", PresentingManager.self)])
        parent.start()
        parent.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        let child = BaseFlowCoordinator(
            name: "wizard", mapping: [RequestRoute(.showList): route("Step", PresentingManager.self)])
        var results: [FlowResult] = []
        parent.openChild(child, style: .modal) { results.append($0) }
        child.requestCoordination(.showList, payload: ["module": "step"], from: .app)
        #expect(parent.router.state.modals == [["step"]])

        // Sent from the child, as a module on top of its modal would: the root still takes the first step.
        let home = CoordinationRequest(.showList, payload: ["module": "home", "style": "root"])
        let result = child.open(deepLink: [home], fromRoot: true)

        #expect(result.isComplete)
        #expect(results == [.cancelled])
        #expect(parent.router.state == PresentationState(stack: ["home"], top: "home"))
    }

    /// Dismissals run plugin code: a flow that shows a modal again when it is cancelled (a "discard the
    /// draft?" prompt) keeps that one, and the link goes on, rather than dismissing for ever.
    @Test func aModalShownAgainAsItsFlowIsCancelledStaysAndTheLinkGoesOn() {
        let parent = BaseFlowCoordinator(mapping: [RequestRoute(.showList): route("List", PresentingManager.self)])
        parent.start()
        parent.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        // The parent is taken weakly by the flow's result handler, which the parent holds while the flow is open.
        func openDraft(_ name: String, in parent: BaseFlowCoordinator) {
            let draft = BaseFlowCoordinator(
                name: name, mapping: [RequestRoute(.showList): route("Draft", PresentingManager.self)])
            parent.openChild(draft, style: .modal) { [weak parent] result in
                if result == .cancelled, let parent { openDraft("prompt", in: parent) }
            }
            draft.requestCoordination(.showList, payload: ["module": .string(name + "Form")], from: .app)
        }
        openDraft("draft", in: parent)

        let result = parent.open(
            deepLink: [CoordinationRequest(.showList, payload: ["module": "home"])], fromRoot: true)

        #expect(result.isComplete)
        #expect(parent.router.state.modals.count == 1, "the prompt the cancelled draft showed")
    }

    @Test func anEmptyLinkFromTheRootDismissesTheModals() {
        let coordinator = coordinatorWithAModalOpen()

        let result = coordinator.open(deepLink: [], fromRoot: true)

        #expect(result.description == "deep link applied: 0 of 0 steps")
        #expect(coordinator.router.state.modals.isEmpty)
    }

    @Test func aLinkWhoseFirstStepNoRouteHandlesStopsThere() {
        let coordinator = coordinatorWithAModalOpen()

        let result = coordinator.open(deepLink: [CoordinationRequest("reviews.show"), detail], fromRoot: true)

        #expect(result.description == "deep link stopped at step 1 of 2: unhandled")
        #expect(coordinator.router.state.stack == ["list"])
    }

    @Test func aRouteAndADeclaredLinkSayWhetherTheyStartFromTheRoot() throws {
        let declared = DeclaredDeepLink("demo://home", opens: [CoordinationRequest(.showList)], fromRoot: true)
        let links = DeepLinkMapping([
            try declared.route(),
            try .init(DeepLinkPattern("demo://items/{id:int}"), steps: [CoordinationRequest(.showDetail)]),
        ])

        #expect(try links.match("demo://home").route.fromRoot)
        #expect(try !links.match("demo://items/2").route.fromRoot)
        #expect(try links.match("demo://items/2").requests == links.requests(for: "demo://items/2"))
        #expect(!DeclaredDeepLink("demo://home", opens: [CoordinationRequest(.showList)]).fromRoot)
        #expect(declared != DeclaredDeepLink("demo://home", opens: [CoordinationRequest(.showList)]))
    }
}
