import FlowKit
import Testing

@MainActor
struct RoutingTests {
    @Test func routesByRequestName() throws {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self)
        ])

        let outcome = coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)

        #expect(outcome == .handled(manager: "List"))
        #expect(coordinator.router.state.top == "list")
    }

    @Test func moduleSpecificRouteWinsOverRequestRoute() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.showDetail): route("Detail", PresentingManager.self),
            RequestRoute(.showDetail, from: "search"): route("SearchDetail", PresentingManager.self),
        ])

        #expect(coordinator.requestCoordination(.showDetail, from: "search") == .handled(manager: "SearchDetail"))
        #expect(coordinator.requestCoordination(.showDetail, from: "list") == .handled(manager: "Detail"))
    }

    @Test func managerIsReleasedWhenItsModuleLeaves() throws {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.showDetail): route("Detail", PresentingManager.self)
        ])
        coordinator.requestCoordination(.showDetail, payload: ["module": "first"], from: .app)
        coordinator.requestCoordination(.showDetail, payload: ["module": "second"], from: "first")
        #expect(log.managers.count == 2)
        #expect(log.managers.allSatisfy { $0.object != nil })

        try coordinator.back()

        #expect(log.managers[0].object != nil, "the first module is still shown")
        #expect(log.managers[1].object == nil, "the second manager went with its module")
    }

    @Test func workingManagerIsHeldUntilItFinishes() throws {
        let (coordinator, log) = BaseFlowCoordinator.withLog([RequestRoute(.work): route("Work", WorkingManager.self)])

        #expect(coordinator.requestCoordination(.work, from: .app) == .handled(manager: "Work"))
        #expect(coordinator.activeManagerCount == 1)

        coordinator.finish(try #require(log.managers.first?.object))

        #expect(coordinator.activeManagerCount == 0)
        #expect(log.managers.first?.object == nil)
    }

    @Test func finishedManagerRemovesItsModules() throws {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self)
        ])
        coordinator.requestCoordination(.showList, payload: ["module": "a"], from: .app)
        coordinator.requestCoordination(.showList, payload: ["module": "b", "style": "modal"], from: "a")
        let modalManager = try #require(log.managers.last?.object)

        coordinator.finish(modalManager)

        #expect(coordinator.router.state.modals.isEmpty)
        #expect(coordinator.router.state.top == "a")
    }

    @Test func unhandledRequestBubblesToParentThenToTheHandler() {
        let (parent, _) = BaseFlowCoordinator.withLog([RequestRoute(.showList): route("List", PresentingManager.self)])
        var unhandled: [CoordinationRequestName] = []
        parent.unhandledRequestHandler = { request, _ in unhandled.append(request.name) }
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .modal)

        #expect(child.requestCoordination(.showList, from: "inChild") == .handled(manager: "List"))
        #expect(child.requestCoordination("nobody.handles", from: "inChild") == .unhandled)
        #expect(unhandled == ["nobody.handles"])
    }

    @Test func throwingManagerFailsTheRequestWithoutCrashing() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([RequestRoute(.work): route("Broken", ThrowingManager.self)])

        #expect(coordinator.requestCoordination(.work, from: .app) == .failed(FlowError("no network")))
        #expect(coordinator.activeManagerCount == 0)
    }

    @Test func factoryThatCannotResolveFailsTheRequest() {
        let factory = ManagerFactory(name: "Lazy") { throw FlowError("plugin 'x' did not load") }
        let coordinator = BaseFlowCoordinator(mapping: [RequestRoute(.work): factory])

        #expect(coordinator.requestCoordination(.work, from: .app) == .failed(FlowError("plugin 'x' did not load")))
    }

    @Test func eventsReportEachOutcome() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self)
        ])
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        coordinator.requestCoordination("missing", from: "list")

        #expect(
            events == [
                .handling(
                    CoordinationRequest(.showList, payload: ["module": "list"]), from: .app, manager: "List",
                    coordinator: "root"),
                .presented("list", style: .inline),
                .handled(
                    CoordinationRequest(.showList, payload: ["module": "list"]), from: .app, manager: "List",
                    coordinator: "root"),
                .unhandled(CoordinationRequest("missing"), from: "list"),
            ])
    }

    @Test func deepLinkStopsAtTheFirstUnhandledStepAndSaysWhy() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute(.showDetail): route("Detail", PresentingManager.self),
        ])

        let result = coordinator.open(deepLink: [
            CoordinationRequest(.showList, payload: ["module": "list"]),
            CoordinationRequest(.showDetail, payload: ["module": "detail"]),
            CoordinationRequest("reviews.show"),
            CoordinationRequest(.showDetail, payload: ["module": "never"]),
        ])

        #expect(result.applied == 2)
        #expect(result.stoppedBy == .unhandled)
        #expect(result.description == "deep link stopped at step 3 of 4: unhandled")
        #expect(coordinator.router.state.stack == ["list", "detail"])
    }

    @Test func deepLinkStepsComeFromTheVisibleModule() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute(.showDetail, from: "list"): route("DetailFromList", PresentingManager.self),
        ])

        let result = coordinator.open(deepLink: [
            CoordinationRequest(.showList, payload: ["module": "list"]), CoordinationRequest(.showDetail),
        ])

        #expect(result.isComplete)
        #expect(result.description == "deep link applied: 2 of 2 steps")
    }

    @Test func payloadDecodesIntoACodableType() throws {
        struct Item: Decodable, Equatable {
            var id: Int
            var tags: [String]
        }
        let request = CoordinationRequest(.showDetail, payload: ["id": 7, "tags": ["new"]])

        #expect(try request.decode(Item.self) == Item(id: 7, tags: ["new"]))
        #expect(throws: DecodingError.self) {
            try CoordinationRequest(.showDetail, payload: ["id": "x"]).decode(Item.self)
        }
    }
}

extension RoutingTests {
    @Test func repeatedLookupsKeepModuleOverridesApartAndFollowMappingChanges() {
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute(.showDetail): route("Detail", PresentingManager.self),
            RequestRoute(.showDetail, from: "search"): route("SearchDetail", PresentingManager.self),
        ])
        let senders: [Coordinated] = ["search", "list", "search", "list", "search"]

        let managers = senders.map { coordinator.factory(for: .showDetail, from: $0)?.name }
        coordinator.mapping = [RequestRoute(.showDetail): route("NewDetail", PresentingManager.self)]

        #expect(managers == ["SearchDetail", "Detail", "SearchDetail", "Detail", "SearchDetail"])
        #expect(coordinator.factory(for: .showDetail, from: "search")?.name == "NewDetail")
        #expect(coordinator.factory(for: "missing", from: "search") == nil)
    }
}

extension RoutingTests {
    @Test func requestsAManagerMakesAreReportedBetweenItsHandlingAndHandled() {
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute(.work): route("Forward", ForwardingManager.self),
            RequestRoute(.showList): route("List", PresentingManager.self),
        ])
        var events: [String] = []
        coordinator.onEvent = { events.append($0.description) }

        coordinator.requestCoordination(.work, from: .app)

        #expect(
            events == [
                "work from app starting in Forward in root",
                "list.show from forward starting in List in root",
                "presented screen (inline)",
                "list.show from forward handled by List in root",
                "ended Forward: finished",
                "work from app handled by Forward in root",
            ])
    }

    @Test func aManagerThatThrowsIsReportedHandlingThenFailed() {
        let coordinator = BaseFlowCoordinator(mapping: [RequestRoute(.work): route("Throwing", ThrowingManager.self)])
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        coordinator.requestCoordination(.work, from: .app)

        #expect(
            events == [
                .handling(CoordinationRequest(.work), from: .app, manager: "Throwing", coordinator: "root"),
                .managerEnded("Throwing", reason: .finished),
                .failed(CoordinationRequest(.work), from: .app, error: FlowError("no network")),
            ])
    }
}

// MARK: - Test Helpers

/// Handles a request by requesting `list.show` as the module `forward`.
@MainActor
private final class ForwardingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        coordinator.requestCoordination(.showList, from: "forward")
        return .finished
    }
}
