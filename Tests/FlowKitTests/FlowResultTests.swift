import FlowKit
import Testing

/// Child flows hand their opener a result: completed with a value, cancelled, or failed.
@MainActor
struct FlowResultTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.showList): route("List", PresentingManager.self)
    ]

    private func parentShowingHome() -> BaseFlowCoordinator {
        let parent = BaseFlowCoordinator(mapping: mapping)
        parent.start()
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        return parent
    }

    @Test func completedChildHandsItsValueToTheOpener() throws {
        struct Item: Codable, Equatable {
            var id: Int
            var title: String
        }
        let parent = parentShowingHome()
        var results: [FlowResult] = []
        var events: [String] = []
        parent.onEvent = { events.append($0.description) }
        let child = BaseFlowCoordinator(name: "createItem")
        parent.openChild(child, style: .modal) { results.append($0) }
        child.requestCoordination(.showList, payload: ["module": "form"], from: .app)

        child.finish(with: try .completed(encoding: Item(id: 4, title: "Tent")))

        #expect(results == [.completed(["id": 4, "title": "Tent"])])
        #expect(try results.first?.value?.decode(Item.self) == Item(id: 4, title: "Tent"))
        #expect(child.result == results.first)
        #expect(events.contains(#"child createItem finished: completed {"id":4,"title":"Tent"}"#))
        #expect(parent.router.state.top == "home")
    }

    @Test func dismissingOrGoingBackCancels() throws {
        let parent = parentShowingHome()
        var results: [String: FlowResult] = [:]
        let modal = BaseFlowCoordinator(name: "modal")
        let inline = BaseFlowCoordinator(name: "inline")
        parent.openChild(inline, style: .inline) { results["inline"] = $0 }
        inline.requestCoordination(.showList, payload: ["module": "step"], from: .app)
        parent.openChild(modal, style: .modal) { results["modal"] = $0 }
        modal.requestCoordination(.showList, payload: ["module": "sheet"], from: .app)

        try parent.dismiss()
        try parent.back()

        #expect(results == ["modal": .cancelled, "inline": .cancelled])
        #expect(FlowResult.cancelled.description == "cancelled")
    }

    @Test func childWhoseManagersFinishedCompletesWithoutAValue() throws {
        let (parent, log) = BaseFlowCoordinator.withLog(mapping)
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        var result: FlowResult?
        let child = BaseFlowCoordinator(name: "switchUser")
        parent.openChild(child, style: .inline) { result = $0 }
        child.requestCoordination(.showList, payload: ["module": "signIn"], from: .app)
        let manager = try #require(log.managers.last?.object)

        child.finish(manager)

        #expect(result == .completed(.null))
        #expect(parent.router.state.top == "home")
    }

    /// A flow that a handler finishes while it is already finishing (its child's `onResult`, called as the child
    /// is cancelled, finishes it with its own result) finishes once: the parent hears of it once, regains its
    /// focus once, and the flow's result is the one its opener was handed. It finished a second time, with the
    /// result it was first asked to, once the walk came back to it.
    @Test func aFlowFinishedByItsChildsHandlerWhileFinishingFinishesOnce() {
        let parent = parentShowingHome()
        var events: [String] = []
        var regained: [String] = []
        var results: [FlowResult] = []
        parent.onEvent = { events.append($0.description) }
        parent.onRegainFocus = { regained.append($0.name) }
        let outer = BaseFlowCoordinator(name: "outer")
        let inner = BaseFlowCoordinator(name: "inner")
        parent.openChild(outer, style: .inline) { results.append($0) }
        outer.requestCoordination(.showList, payload: ["module": "outerScreen"], from: .app)
        outer.openChild(inner, style: .modal) { _ in outer.finish(with: .failed(FlowError("from inner"))) }
        inner.requestCoordination(.showList, payload: ["module": "innerScreen"], from: .app)

        outer.finish(with: .completed("done"))

        #expect(results == [.failed(FlowError("from inner"))])
        #expect(outer.result == results.first)
        #expect(regained == ["outer"])
        #expect(events.filter { $0.hasPrefix("child outer finished") } == ["child outer finished: failed: from inner"])
        #expect(parent.router.state.top == "home")
    }

    /// The same, with the opener's handler opening the flow again at once (a retry): the new opening stays open,
    /// and its handler hears nothing of the first one's finish. The walk that was finishing the flow finished the
    /// new opening with its own result.
    @Test func aFlowOpenedAgainByItsOpenersHandlerWhileFinishingStaysOpen() {
        let parent = parentShowingHome()
        var first: [FlowResult] = []
        var second: [FlowResult] = []
        let outer = BaseFlowCoordinator(name: "outer")
        let inner = BaseFlowCoordinator(name: "inner")
        parent.openChild(outer, style: .inline) { result in
            first.append(result)
            parent.openChild(outer, style: .inline) { second.append($0) }
        }
        outer.openChild(inner, style: .modal) { _ in outer.finish(with: .failed(FlowError("from inner"))) }

        outer.finish(with: .completed("done"))

        #expect(first == [.failed(FlowError("from inner"))])
        #expect(second.isEmpty)
        #expect(outer.parent === parent)
        #expect(parent.childCoordinators.count == 1)
    }

    @Test func childrenOfAFinishingChildAreCancelled() {
        let parent = parentShowingHome()
        let child = BaseFlowCoordinator(name: "child")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        var grandchildResult: FlowResult?
        parent.openChild(child, style: .modal)
        child.openChild(grandchild, style: .modal) { grandchildResult = $0 }

        child.finish(with: .failed(FlowError("no network")))

        #expect(grandchildResult == .cancelled)
        #expect(child.result == .failed(FlowError("no network")))
        #expect(child.result?.description == "failed: no network")
    }

    @Test func managersSeeFinishAndParentThroughTheProtocol() {
        let parent = parentShowingHome()
        let child = BaseFlowCoordinator(name: "child")
        var result: FlowResult?
        parent.openChild(child, style: .modal) { result = $0 }
        let seen: any FlowCoordinator = child

        #expect(seen.parentCoordinator === parent)
        seen.finish(with: .completed("done"))

        #expect(result == .completed("done"))
        #expect(seen.parentCoordinator == nil)
    }
}
