import FlowKit

/// The harness coordinator's one service: it runs the services a test adds, in order, and provides the
/// context a test sets.
///
/// A coordinator's services are fixed when it is made, but a test adds its services after it makes the
/// harness, so this stands in for them. It does what the coordinator would: starts them in order (each
/// reported as `serviceStarted` with its own type name; an ``AsyncCoordinatorService`` in the background,
/// after the synchronous ones, each awaited within the coordinator's `serviceTimeout`, one that throws or
/// takes longer reported as `serviceProblem`), stops them in reverse, passes lifecycle events
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
    /// The coordinator while it runs.
    private weak var coordinator: (any FlowCoordinator)?
    /// The async services' starts, one after another, in the background.
    private var asyncStarts: Task<Void, Never>?
    /// The problems of the async starts since ``asyncStartsDone()`` last returned them.
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

    /// Returns once the async services' starts under way are done, with the problems they had since it last
    /// returned.
    func asyncStartsDone() async -> [ServiceProblem] {
        while let work = asyncStarts {
            await work.value
            if asyncStarts == work { asyncStarts = nil }
        }
        defer { problems.removeAll() }
        return problems
    }

    func stop() {
        coordinator = nil
        for service in services.reversed() {
            service.stop()
            report?(.serviceStopped(Self.name(of: service)))
        }
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
        let previous = asyncStarts
        let timeout = (coordinator as? BaseFlowCoordinator)?.serviceTimeout ?? .seconds(5)
        asyncStarts = Task { @MainActor [weak self] in
            await previous?.value
            let problem = await Self.start(awaited, with: coordinator, within: timeout)
            guard let self else { return }
            if let problem { problems.append(problem) }
            report?(problem.map(FlowEvent.serviceProblem) ?? .serviceStarted(Self.name(of: awaited)))
        }
    }

    /// Awaits `service`'s start for at most `timeout`: a start still running then is cancelled and left behind,
    /// as the coordinator leaves it.
    private static func start(
        _ service: any AsyncCoordinatorService, with coordinator: any FlowCoordinator, within timeout: Duration
    ) async -> ServiceProblem? {
        let (outcomes, continuation) = AsyncStream<ServiceProblem.Kind?>.makeStream()
        let starting = Task { @MainActor in
            do {
                try await service.start(with: coordinator)
                continuation.yield(nil)
            } catch {
                continuation.yield(.startFailed(FlowError(wrapping: error)))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { continuation.yield(.startTimedOut(timeout)) }
        }
        var iterator = outcomes.makeAsyncIterator()
        let outcome = await iterator.next() ?? nil
        continuation.finish()
        timer.cancel()
        if case .startTimedOut = outcome { starting.cancel() }
        return outcome.map { ServiceProblem(service: name(of: service), kind: $0) }
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
