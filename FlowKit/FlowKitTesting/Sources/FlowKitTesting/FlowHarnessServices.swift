import FlowKit

/// The harness coordinator's one service: it runs the services a test adds, in order, and provides the
/// context a test sets.
///
/// A coordinator's services are fixed when it is made, but a test adds its services after it makes the
/// harness, so this stands in for them. It does what the coordinator would: starts them in order (each
/// reported as `serviceStarted` with its own type name; an ``AsyncCoordinatorService`` in the background,
/// after the synchronous ones, each awaited within the coordinator's `serviceTimeout`, one that throws or
/// takes longer reported as `serviceProblem`), stops them in reverse (an async one in the background too,
/// after the synchronous ones, `serviceProblem` when it takes longer), passes lifecycle events
/// on (each service that heard one reported as `lifecycleDelivered`), and merges the context of the
/// context providers among them, as the coordinator merges its providers': each contributes its keys, and a
/// key two provide is the one added first's.
@MainActor
final class FlowHarnessServices: ContextProviderProtocol, CoordinatorServiceLifeCycleProtocol {
    /// The services, in the order they were added.
    private(set) var services: [any CoordinatorServiceProtocol] = []
    /// The context a test set; it wins over any provider.
    var contextOverride: CoordinatorContext?
    /// Where service events go, since this service cannot reach the coordinator's listener.
    var report: (@MainActor (FlowEvent) -> Void)?
    /// The harness's coordinator, whose `serviceTimeout` bounds each async start and stop.
    weak var owner: BaseFlowCoordinator?
    /// The coordinator while it runs.
    private weak var coordinator: (any FlowCoordinator)?
    /// The async services' starts and stops, one after another, in the background.
    private var backgroundWork: Task<Void, Never>?
    /// The problems of that work since ``backgroundWorkDone()`` last returned them.
    private var problems: [ServiceProblem] = []

    var context: CoordinatorContext {
        if let contextOverride { return contextOverride }
        var merged = CoordinatorContext.empty
        for case let provider as any ContextProviderProtocol in services {
            merged.values.merge(provider.context.values) { earlier, _ in earlier }
        }
        return merged
    }

    /// Adds `service`; starts it at once with `coordinator` when one is given (the harness is running).
    func add(_ service: any CoordinatorServiceProtocol, startingWith coordinator: (any FlowCoordinator)?) {
        services.append(service)
        if let coordinator { start(service, with: coordinator) }
    }

    func start(with coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
        for service in services where !(service is any AsyncCoordinatorService) { start(service, with: coordinator) }
        for service in services where service is any AsyncCoordinatorService { start(service, with: coordinator) }
    }

    func stop() {
        coordinator = nil
        var later: [any AsyncCoordinatorService] = []
        for service in services.reversed() {
            if let service = service as? any AsyncCoordinatorService {
                later.append(service)
            } else {
                service.stop()
                report?(.serviceStopped(Self.name(of: service)))
            }
        }
        for service in later {
            let name = Self.name(of: service)
            inBackground(name, done: .serviceStopped(name)) { timeout in
                switch await Self.run(within: timeout, { await service.stop() }) {
                case .done, .failed: nil
                case .timedOut: .stopTimedOut(timeout)
                }
            }
        }
    }

    /// Returns once the async services' starts and stops under way are done, with the problems they had since
    /// it last returned.
    func backgroundWorkDone() async -> [ServiceProblem] {
        while let work = backgroundWork {
            await work.value
            if backgroundWork == work { backgroundWork = nil }
        }
        defer { problems.removeAll() }
        return problems
    }

    func willEnterBackground() { lifecycle(.willEnterBackground) { $0.willEnterBackground() } }
    func didEnterBackground() { lifecycle(.didEnterBackground) { $0.didEnterBackground() } }
    func willEnterForeground() { lifecycle(.willEnterForeground) { $0.willEnterForeground() } }
    func didBecomeActive() { lifecycle(.didBecomeActive) { $0.didBecomeActive() } }
    func willTerminate() { lifecycle(.willTerminate) { $0.willTerminate() } }

    private func start(_ service: any CoordinatorServiceProtocol, with coordinator: any FlowCoordinator) {
        guard let awaited = service as? any AsyncCoordinatorService else {
            service.start(with: coordinator)
            report?(.serviceStarted(Self.name(of: service)))
            return
        }
        let name = Self.name(of: service)
        inBackground(name, done: .serviceStarted(name)) { timeout in
            switch await Self.run(within: timeout, { try await awaited.start(with: coordinator) }) {
            case .done: nil
            case .failed(let error): .startFailed(FlowError(wrapping: error))
            case .timedOut: .startTimedOut(timeout)
            }
        }
    }

    /// Runs `work` after the background work before it, within the owner's `serviceTimeout`, and reports
    /// `done`, or the problem of the service `name` that `work` comes to.
    private func inBackground(
        _ name: String, done: FlowEvent, _ work: @escaping @MainActor (Duration) async -> ServiceProblem.Kind?
    ) {
        let previous = backgroundWork
        let timeout = owner?.serviceTimeout ?? .seconds(5)
        backgroundWork = Task { @MainActor [weak self] in
            await previous?.value
            let kind = await work(timeout)
            guard let self else { return }
            if let kind {
                let problem = ServiceProblem(service: name, kind: kind)
                problems.append(problem)
                report?(.serviceProblem(problem))
            } else {
                report?(done)
            }
        }
    }

    /// How a piece of background work ended.
    private enum Outcome {
        case done
        case failed(any Error)
        case timedOut
    }

    /// Runs `work` on the main actor for at most `timeout`: work still running then is cancelled and left
    /// behind, as the coordinator leaves it, so that one stuck service holds up no other.
    private static func run(
        within timeout: Duration, _ work: @escaping @MainActor () async throws -> Void
    ) async -> Outcome {
        let (outcomes, continuation) = AsyncStream<Outcome>.makeStream()
        let running = Task { @MainActor in
            do {
                try await work()
                continuation.yield(.done)
            } catch {
                continuation.yield(.failed(error))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { continuation.yield(.timedOut) }
        }
        var iterator = outcomes.makeAsyncIterator()
        let outcome = await iterator.next() ?? .timedOut
        continuation.finish()
        timer.cancel()
        if case .timedOut = outcome { running.cancel() }
        return outcome
    }

    /// Delivers `event` to each lifecycle service, reporting each after it heard it, as the coordinator does.
    private func lifecycle(_ event: LifecycleEvent, _ deliver: (any CoordinatorServiceLifeCycleProtocol) -> Void) {
        for service in services {
            guard let service = service as? any CoordinatorServiceLifeCycleProtocol else { continue }
            deliver(service)
            report?(.lifecycleDelivered(event, to: Self.name(of: service)))
        }
    }

    /// The name the coordinator would report the service under.
    private static func name(of service: any CoordinatorServiceProtocol) -> String {
        String(describing: type(of: service))
    }
}
