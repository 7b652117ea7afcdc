import FlowKit

/// The request path through a ``BaseFlowCoordinator`` (lookup, manager creation, module presentation,
/// manager disposal) against the same work written as direct calls.
@MainActor
enum RequestPathBenchmark {
    /// Builds one module and presents it inline, as most managers do.
    final class ShowManager: FlowManager {
        override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
            .present(FlowModule("detail", coordination: coordinator), .inline)
        }
    }

    static let request = CoordinationRequest("detail.show")

    /// Nanoseconds per request, through the coordinator: request, then back (which disposes the manager).
    static func coordinated(iterations: Int) -> Double {
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute("list.show"): ManagerFactory("List", ShowManager.self),
            RequestRoute(request.name): ManagerFactory("Detail", ShowManager.self),
        ])
        coordinator.requestCoordination("list.show", from: .app)
        return measure(iterations) {
            let outcome = coordinator.requestCoordination(request, from: "list")
            precondition(outcome.isHandled)
            try! coordinator.back()
        }
    }

    /// Nanoseconds per request, written directly as a hand-made coordinator would: pick the manager with a
    /// `switch` on the name, make it, start it, push its module, pop it (releasing both).
    static func direct(iterations: Int) -> Double {
        let coordinator = BaseFlowCoordinator()
        var stack: [(FlowModule, ShowManager)] = []
        return measure(iterations) {
            let manager: ShowManager
            switch request.name {
            case "list.show", "detail.show": manager = ShowManager(coordinator: coordinator)
            default: fatalError("no manager for \(request.name)")
            }
            guard case .present(let module, _) = try! manager.start(request, from: "list") else { fatalError() }
            stack.append((module, manager))
            stack.removeLast()
        }
    }

    private static func measure(_ iterations: Int, _ body: () -> Void) -> Double {
        for _ in 0..<min(iterations, 10_000) { body() }  // warm up
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<iterations { body() } }
        let (seconds, attoseconds) = elapsed.components
        return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations)
    }
}
