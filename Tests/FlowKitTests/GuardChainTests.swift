import FlowKit
import Testing

/// The guard chain: consulted before routing, in order, ancestors first; proceed, rewrite and reject.
@MainActor
struct GuardChainTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.showList): route("List", PresentingManager.self),
        RequestRoute(.showDetail): route("Detail", PresentingManager.self),
    ]

    @Test func withoutGuardsThereIsNoChainAndRequestsRouteAsBefore() {
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping)
        let child = BaseFlowCoordinator(name: "child")
        coordinator.openChild(child, style: .modal)

        #expect(coordinator.guardChain.isEmpty)
        #expect(child.guardChain.isEmpty)
        #expect(child.requestCoordination(.showList, from: .app) == .handled(manager: "List"))
        #expect(coordinator.heldRequests.isEmpty)
    }

    @Test func proceedingGuardsSeeTheRequestInOrderThenItIsRouted() {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)
        for name in ["first", "second"] {
            coordinator.addGuard(
                ClosureGuard(name) { request, module, _ in
                    log.append("\(name) saw \(request.name) from \(module)")
                    return .proceed
                })
        }

        let outcome = coordinator.requestCoordination(.showList, payload: ["module": "list"], from: "home")

        #expect(outcome == .handled(manager: "List"))
        #expect(log.entries == ["first saw list.show from home", "second saw list.show from home"])
        #expect(coordinator.router.state.top == "list")
    }

    @Test func rewriteReplacesTheRequestForTheLaterGuardsAndRouting() {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        var rewrites = 0
        coordinator.guards = [
            ClosureGuard("legacy") { request, _, _ in
                guard request.name == .showList else { return .proceed }
                rewrites += 1
                return .rewrite(CoordinationRequest(.showDetail, payload: ["module": "detail"]))
            },
            ClosureGuard("audit") { request, _, _ in
                log.append("audit saw \(request.name)")
                return .proceed
            },
        ]

        let outcome = coordinator.requestCoordination(.showList, from: "home")

        #expect(outcome == .handled(manager: "Detail"))
        #expect(rewrites == 1, "the rewriting guard does not see its own rewrite")
        #expect(log.entries == ["audit saw detail.show"])
        #expect(coordinator.router.state.top == "detail")
        #expect(
            events.first?.description
                == #"list.show from home rewritten to detail.show {"module":"detail"} by guard 'legacy'"#)
    }

    @Test func rejectFailsTheRequestWithTheGuardsReasonAndStopsTheChain() {
        let (coordinator, log) = BaseFlowCoordinator.withLog(mapping)
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        coordinator.guards = [
            ClosureGuard("closed") { request, _, _ in
                request.name == .showDetail ? .reject(FlowError("the shop is closed")) : .proceed
            },
            ClosureGuard("later") { request, _, _ in
                log.append("later saw \(request.name)")
                return .proceed
            },
        ]

        let outcome = coordinator.requestCoordination(.showDetail, from: "home")

        let error = FlowError("rejected by guard 'closed': the shop is closed")
        #expect(outcome == .failed(error))
        #expect(events == [.failed(CoordinationRequest(.showDetail), from: "home", error: error)])
        #expect(log.entries.isEmpty, "no guard after the rejecting one is asked")
        #expect(coordinator.router.state.top == nil)
        #expect(coordinator.requestCoordination(.showList, from: "home").isHandled, "other requests pass")
    }

    @Test func childrenSeeTheirAncestorsGuardsFirstThenTheirOwn() {
        let (root, log) = BaseFlowCoordinator.withLog(mapping)
        func recording(_ name: String) -> ClosureGuard {
            ClosureGuard(name) { request, _, coordinator in
                log.append("\(name) in \(coordinator.name)")
                return .proceed
            }
        }
        root.addGuard(recording("root"))
        let child = BaseFlowCoordinator(name: "child")
        root.openChild(child, style: .modal)
        child.addGuard(recording("child"))
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        child.openChild(grandchild, style: .inline)

        grandchild.requestCoordination(.showList, from: .app)
        root.requestCoordination(.showList, from: .app)

        #expect(grandchild.guardChain.map(\.name) == ["root", "child"])
        #expect(log.entries == ["root in grandchild", "child in grandchild", "root in root"])
    }

    @Test func guardsSetLaterReachChildrenAlreadyOpen() {
        let (root, _) = BaseFlowCoordinator.withLog(mapping)
        let child = BaseFlowCoordinator(name: "child")
        root.openChild(child, style: .tab("Tab"))

        root.guards = [ClosureGuard("closed") { _, _, _ in .reject(FlowError("closed")) }]
        #expect(child.guardChain.map(\.name) == ["closed"])
        #expect(
            child.requestCoordination(.showList, from: .app) == .failed(FlowError("rejected by guard 'closed': closed"))
        )

        root.guards = []
        #expect(child.guardChain.isEmpty)
        #expect(child.requestCoordination(.showList, from: .app).isHandled)
    }

    /// Guard chains are told down only as far as they change (the walk that tells listeners stops there too): a
    /// level whose chain is what it was tells its descendants nothing, and each level's chain stays its ancestors'
    /// then its own, however the tree was built and whichever guards change.
    @Test func chainsStayRightAsSubtreesOpenFromTheInsideOutAndGuardsChange() {
        let (root, _) = BaseFlowCoordinator.withLog(mapping)
        func named(_ name: String) -> ClosureGuard { ClosureGuard(name) { _, _, _ in .proceed } }
        let child = BaseFlowCoordinator(name: "child")
        let middle = BaseFlowCoordinator(name: "middle")
        let grandchild = BaseFlowCoordinator(name: "grandchild")
        child.addGuard(named("child"))
        middle.openChild(grandchild, style: .inline)
        child.openChild(middle, style: .inline)
        grandchild.addGuard(named("grandchild"))
        #expect(grandchild.guardChain.map(\.name) == ["child", "grandchild"])

        root.addGuard(named("root"))
        root.openChild(child, style: .inline)
        #expect(middle.guardChain.map(\.name) == ["root", "child"])
        #expect(grandchild.guardChain.map(\.name) == ["root", "child", "grandchild"])

        root.guards = [named("other")]
        #expect(grandchild.guardChain.map(\.name) == ["other", "child", "grandchild"])
        child.guards = []
        #expect(middle.guardChain.map(\.name) == ["other"])
        #expect(grandchild.guardChain.map(\.name) == ["other", "grandchild"])
        middle.finish(with: .cancelled)
        #expect(middle.guardChain.isEmpty)
        #expect(grandchild.guardChain.map(\.name) == ["grandchild"], "finished with its parent: its own alone")
    }

    @Test func requestPatternsMatchNamesPrefixesAndEverything() throws {
        let prefix = try RequestPattern("catalog.*")
        #expect(prefix.matches("catalog.list"))
        #expect(prefix.matches("catalog.create.form"))
        #expect(!prefix.matches("catalog"))
        #expect(!prefix.matches("catalogue.list"))
        #expect(try RequestPattern("catalog.list").matches("catalog.list"))
        #expect(try !RequestPattern("catalog.list").matches("catalog.listing"))
        #expect(try RequestPattern("*").matches("anything"))

        #expect(
            throws: FlowError(
                "request pattern 'cat*': '*' must be the whole last segment, as in 'catalog.*', or the whole pattern")
        ) {
            try RequestPattern("cat*")
        }
        #expect(throws: FlowError("a request pattern must not be empty; write a name, 'prefix.*' or '*'")) {
            try RequestPattern("")
        }
    }

    @Test func conditionsReadTheContextAndTheDependencies() {
        let session = MutableSession()
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping, services: [session])

        #expect(!GuardCondition.context("user").holds(in: coordinator))
        session.user = "ada"
        #expect(GuardCondition.context("user").holds(in: coordinator))
        #expect(!GuardCondition.context("consent").holds(in: coordinator), "false counts as absent")
        #expect(GuardCondition.dependency(.session).holds(in: coordinator))
        #expect(!GuardCondition.dependency(.store).holds(in: coordinator))
    }
}
