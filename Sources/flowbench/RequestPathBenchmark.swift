import FlowKit

/// The request path through a ``BaseFlowCoordinator`` (lookup, manager creation, module presentation, going
/// back, which disposes of the manager) against the same work written as direct calls, and how its cost
/// grows with the routing table, the names in use, open child flows and action payloads.
@MainActor
enum RequestPathBenchmark {
    /// Builds one module and presents it inline, as most managers do.
    final class ShowManager: FlowManager {
        override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
            .present(FlowModule("catalog.item", coordination: coordinator), .inline)
        }
    }

    /// The request measured, and the one that shows the screen it is sent from, named as a plugin's are.
    static let request = CoordinationRequest("catalog.item.show")
    static let listRequest = CoordinationRequest("catalog.list.show")

    /// Nanoseconds per request, through the coordinator: request, then back (which disposes the manager).
    static func coordinated(iterations: Int) -> Double {
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute(listRequest.name): ManagerFactory("CatalogPlugin.ItemList", ShowManager.self),
            RequestRoute(request.name): ManagerFactory("CatalogPlugin.ItemDetail", ShowManager.self),
        ])
        coordinator.requestCoordination(listRequest, from: .app)
        return Timing.nanoseconds(iterations) {
            let outcome = coordinator.requestCoordination(request, from: "catalog.list")
            precondition(outcome.isHandled)
            try! coordinator.back()
        }
    }

    /// Nanoseconds per request, written directly as a hand-made coordinator would: pick the manager with a
    /// `switch` on the name, make it, start it, push its module, pop it (releasing both).
    static func direct(iterations: Int) -> Double {
        let coordinator = BaseFlowCoordinator()
        var stack: [(FlowModule, ShowManager)] = []
        return Timing.nanoseconds(iterations) {
            let manager: ShowManager
            switch request.name.rawValue {
            case "catalog.list.show", "catalog.item.show": manager = ShowManager(coordinator: coordinator)
            default: fatalError("no manager for \(request.name)")
            }
            guard case .present(let module, _) = try! manager.start(request, from: "catalog.list") else { fatalError() }
            stack.append((module, manager))
            stack.removeLast()
        }
    }

    /// Nanoseconds per request with `names` request names in rotation (a power of two), spread over a table of
    /// `routes` routes (at least `names`), named as a catalog's items are: `catalog.item.N`.
    static func rotating(names: Int, routes: Int, iterations: Int) -> Double {
        precondition(names > 0 && names & (names - 1) == 0 && routes >= names)
        let factory = ManagerFactory("Show", ShowManager.self)
        var mapping = RequestCoordinatorMappingDictionary(minimumCapacity: routes)
        for index in 0..<routes { mapping[RequestRoute(CoordinationRequestName("catalog.item.\(index)"))] = factory }
        let coordinator = BaseFlowCoordinator(mapping: mapping)
        coordinator.requestCoordination(CoordinationRequest("catalog.item.0"), from: .app)
        let stride = routes / names
        let requests = (0..<names).map {
            CoordinationRequest(CoordinationRequestName("catalog.item.\($0 * stride)"))
        }
        var next = 0
        return Timing.nanoseconds(iterations) {
            let outcome = coordinator.requestCoordination(requests[next], from: "catalog.list")
            next = (next + 1) & (names - 1)
            precondition(outcome.isHandled)
            try! coordinator.back()
        }
    }

    /// Nanoseconds to present a module and go back with `children` child flows open, each showing a module.
    static func withChildren(_ children: Int) -> Double {
        let factory = ManagerFactory("Show", ShowManager.self)
        let coordinator = BaseFlowCoordinator(mapping: [RequestRoute(request.name): factory])
        coordinator.requestCoordination(request, from: .app)
        var open: [BaseFlowCoordinator] = []
        for index in 0..<children {
            let child = BaseFlowCoordinator(
                name: "child\(index)", mapping: [RequestRoute("catalog.filter.show"): factory])
            coordinator.openChild(child, style: .inline, onResult: nil)
            precondition(child.requestCoordination("catalog.filter.show", from: .app).isHandled)
            open.append(child)
        }
        let time = Timing.nanoseconds {
            precondition(coordinator.requestCoordination(request, from: "catalog.list").isHandled)
            try! coordinator.back()
        }
        precondition(open.allSatisfy(\.isRunning))
        return time
    }

    /// Nanoseconds per module action that asks for a request with `payload`, presents, and goes back.
    static func action(payload: JSONValue) -> Double {
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute(listRequest.name): ManagerFactory("CatalogPlugin.ItemList", ShowManager.self),
            RequestRoute(request.name): ManagerFactory("CatalogPlugin.ItemDetail", ShowManager.self),
        ])
        coordinator.requestCoordination(listRequest, from: .app)
        guard let list = coordinator.router.top else { fatalError("no list") }
        list.addAction(.request("open", request.name, payload: ["source": "list"]))
        return Timing.nanoseconds {
            precondition(try! list.perform("open", payload: payload)?.isHandled == true)
            try! coordinator.back()
        }
    }

    /// A JSON object of about `bytes` bytes: members of 100 bytes each.
    static func payload(bytes: Int) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for index in 0..<(bytes / 100) { members["field\(index)"] = .string(String(repeating: "x", count: 88)) }
        return .object(members)
    }
}
