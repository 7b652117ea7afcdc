import Testing

@testable import FlowKit

/// A plugin can open thousands of child flows in one request, each inside the one before: every walk of the tree
/// goes through them with a list of where it is, not a call per level, and without walking up from each.
@MainActor
struct DeepNestingTests {
    private let routes: RequestCoordinatorMappingDictionary = [RequestRoute(.deep): route("Deep", NestingManager.self)]

    /// A plugin can nest thousands of child flows in one request, each inside the one before. A restore over them
    /// finishes them, innermost first, each telling the listener above and its parent: with a list of the flows
    /// under way rather than a call per level (16,000 levels ran out of stack in a debug build, a crash rather
    /// than an error), and with what each needs from above found without walking up from each (which made clearing
    /// them quadratic): the root taken from the level above, the nearest listener kept by each coordinator
    /// (`listeningAncestor`).
    @Test func aRestoreOverThousandsOfNestedFlowsFinishesThemInnermostFirst() throws {
        let restoring = BaseFlowCoordinator(name: "app", mapping: routes)
        restoring.start()
        try #require(
            restoring.requestCoordination(.deep, payload: ["depth": .number(Double(depth))], from: "home").isHandled)
        var finished: [FlowResult] = []
        restoring.onEvent = { event in
            if case .childFinished(_, let result) = event { finished.append(result) }
        }
        let deepest = innermost(of: restoring)
        let shown = restoring.router.state.stack.count
        var innermostFirst: [Int] = []
        var level = deepest
        var index = 0
        while let parent = level.parent {
            parent.onRegainFocus = { [index] _ in innermostFirst.append(index) }
            level = parent
            index += 1
        }

        let report = try restoring.restore(FlowSnapshot(steps: [], presentation: .init(stack: [])))

        #expect(shown == depth)
        #expect(report.isComplete, "\(report.summary)")
        #expect(restoring.children.isEmpty)
        #expect(restoring.router.state.stack.isEmpty)
        #expect(deepest.result == .cancelled)
        #expect(finished.count == depth && finished.allSatisfy { $0 == .cancelled })
        #expect(innermostFirst == Array(0..<depth), "each parent regained focus after the flow inside it finished")
    }

    /// The other walks of a tree go through such a nesting as well, each with a list rather than a call per
    /// level: guards installed above reach the innermost flow, a dependency set above replays what waits for it
    /// there, the context and dependencies are read from there, lifecycle events reach its services, turning
    /// restoration off forgets every flow's step, and stopping stops every level.
    @Test func everyWalkOfATreeGoesThroughThousandsOfNestedFlows() throws {
        let session = MutableSession()
        session.user = "ada"
        let app = BaseFlowCoordinator(name: "app", mapping: routes, services: [session])
        app.isRestorable = true
        app.start()
        let payload: JSONValue = ["depth": .number(Double(depth)), "services": true]
        try #require(app.requestCoordination(.deep, payload: payload, from: "home").isHandled)
        let deepest = innermost(of: app)
        var counters: [BackgroundCounter] = []
        var level: BaseFlowCoordinator? = deepest
        while let current = level, let counter = current.services.first as? BackgroundCounter {
            counters.append(counter)
            level = current.parent
        }
        deepest.mapping = [RequestRoute(.waits): route("Waits", WaitingManager.self)]
        let waiting = deepest.requestCoordination(.waits, from: "page")

        app.guards = [RedirectGuard.signedIn()]
        app.setDependency(.waitedFor, "here")
        app.send(.didEnterBackground)
        let replaced = app.replaceBackgroundManagers { _ in true }
        app.isRestorable = false
        app.stop()

        #expect(counters.count == depth)
        #expect(waiting == .queued(waitingFor: [.waitedFor]))
        #expect(app.router.state.stack.last == "waited", "the request replayed once its dependency was set above")
        #expect(deepest.guardChain.map(\.name) == ["signedIn"])
        #expect(deepest.context.values["user"] == "ada")
        #expect(deepest.dependencies.contains(.waitedFor))
        #expect(counters.allSatisfy { $0.backgrounds == 1 })
        #expect(replaced == 0)
        #expect(!deepest.isRunning)
        #expect(counters.allSatisfy { $0.isStopped })
    }

    /// How deep ``aRestoreOverThousandsOfNestedFlowsFinishesThemInnermostFirst()`` and
    /// ``everyWalkOfATreeGoesThroughThousandsOfNestedFlows()`` nest.
    private let depth = 16_000

    /// The innermost of the flows nested in `coordinator`'s first child.
    private func innermost(of coordinator: BaseFlowCoordinator) -> BaseFlowCoordinator {
        var deepest = coordinator
        while let child = deepest.children.first { deepest = child }
        return deepest
    }
}

// MARK: - Test Helpers

extension CoordinationRequestName {
    fileprivate static let deep: Self = "nesting.deep"
    fileprivate static let waits: Self = "nesting.waits"
}

extension DependencyKey {
    fileprivate static let waitedFor: Self = "nesting.waitedFor"
}

/// Opens the payload's `depth` child flows `level` in one request, each inside the one before and showing a `page`;
/// with `services`, each runs a ``BackgroundCounter``.
@MainActor
private final class NestingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        var parent: any FlowCoordinator = coordinator
        let withServices = request.payload["services"] == true
        for _ in 0..<(request.payload["depth"]?.int ?? 0) {
            let flow = BaseFlowCoordinator(name: "level", services: withServices ? [BackgroundCounter()] : [])
            parent.openChild(flow, style: .inline)
            flow.present(FlowModule("page", coordination: flow), style: .inline, by: self)
            parent = flow
        }
        return .finished
    }
}

/// Counts the times its coordinator's tree went to the background, and whether it was stopped.
@MainActor
private final class BackgroundCounter: CoordinatorServiceLifeCycleProtocol {
    private(set) var backgrounds = 0
    private(set) var isStopped = false

    func start(with coordinator: any FlowCoordinator) {}
    func stop() { isStopped = true }
    func willEnterBackground() {}
    func didEnterBackground() { backgrounds += 1 }
    func willEnterForeground() {}
    func didBecomeActive() {}
    func willTerminate() {}
}

/// Pushes `waited`, once `nesting.waitedFor` is set.
@MainActor
private final class WaitingManager: FlowManager {
    override class var requirements: [DependencyKey] { [.waitedFor] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module("waited"), .inline)
    }
}
