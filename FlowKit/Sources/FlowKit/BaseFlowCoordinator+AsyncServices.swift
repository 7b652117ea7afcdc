/// Starting and stopping services that await, each within ``BaseFlowCoordinator/serviceTimeout``.
extension BaseFlowCoordinator {
    /// Starts the coordinator as ``start()`` does, awaiting each service in order: an
    /// ``AsyncCoordinatorService`` at most ``serviceTimeout``.
    ///
    /// A service that throws, or takes longer (it is then cancelled), is reported by name as
    /// ``FlowEvent/serviceProblem(_:)`` and the next one starts. Starting a running coordinator does
    /// nothing; stopping it meanwhile leaves the remaining services unstarted.
    ///
    /// - Returns: The services that failed to start or did not start in time, in order.
    @discardableResult
    public func startAndWait() async -> [ServiceProblem] {
        guard !isRunning else { return [] }
        isRunning = true
        appointContextProviders()
        await backgroundServiceWork?.value
        var problems: [ServiceProblem] = []
        for service in services {
            guard isRunning else { break }
            if let problem = await startService(service) { problems.append(problem) }
        }
        return problems
    }

    /// Stops the coordinator as ``stop()`` does, awaiting each service in reverse order: an
    /// ``AsyncCoordinatorService`` at most ``serviceTimeout``.
    ///
    /// Children stop first, each the same way. A service that takes longer is cancelled, reported by name
    /// as ``FlowEvent/serviceProblem(_:)``, and left behind: the others stop all the same, so this always
    /// returns, after at most the timeout per service.
    ///
    /// - Returns: The services that did not stop in time, in the order they were stopped.
    @discardableResult
    public func stopAndWait() async -> [ServiceProblem] {
        guard isRunning else { return [] }
        isRunning = false
        var problems: [ServiceProblem] = []
        for child in children.reversed() { problems += await child.stopAndWait() }
        releaseWorking()
        await backgroundServiceWork?.value
        for service in services.reversed() {
            if let problem = await stopService(service) { problems.append(problem) }
        }
        deadLetterAll(reason: "the coordinator '\(name)' stopped while it was waiting")
        return problems
    }

    /// Returns once the service work running in the background is done: the starts, stops and replacements
    /// that ``start()``, ``stop()`` and ``replaceService(_:with:)`` left to it, each within ``serviceTimeout``,
    /// and any queued while it waited.
    ///
    /// What a caller that replaced an ``AsyncCoordinatorService`` awaits before it relies on the new one: the
    /// dependencies it sets once started, its context. Returns at once when there is none. Since FlowKit 1.5.
    public func serviceWorkDone() async {
        while let work = backgroundServiceWork {
            await work.value
            // Work queued meanwhile ran after this one: wait for it too. Nothing queued since: done.
            if backgroundServiceWork == work {
                backgroundServiceWork = nil
                return
            }
        }
    }

    // MARK: - One service

    /// Starts `service`, awaiting an async one at most ``serviceTimeout``, and reports how it went.
    @discardableResult
    func startService(_ service: any CoordinatorServiceProtocol) async -> ServiceProblem? {
        let name = Self.name(of: service)
        guard let awaited = service as? any AsyncCoordinatorService else {
            service.start(with: self)
            sink?(.serviceStarted(name))
            return nil
        }
        let problem: ServiceProblem? =
            switch await withTimeout(serviceTimeout, { try await awaited.start(with: self) }) {
            case .done: nil
            case .failed(let error): ServiceProblem(service: name, kind: .startFailed(FlowError(wrapping: error)))
            case .timedOut: ServiceProblem(service: name, kind: .startTimedOut(serviceTimeout))
            }
        if problem == nil {
            servicesNotStarted.remove(ObjectIdentifier(awaited))
        } else {
            servicesNotStarted.insert(ObjectIdentifier(awaited))
        }
        sink?(problem.map(FlowEvent.serviceProblem) ?? .serviceStarted(name))
        return problem
    }

    /// Stops `service`, awaiting an async one at most ``serviceTimeout``, and reports how it went. One whose
    /// start threw or timed out is asked to stop all the same (it may hold what it took before it failed), but
    /// no `serviceStopped` says so: the host printed `service 'X' stopped` after `service 'X' failed to start`.
    @discardableResult
    func stopService(_ service: any CoordinatorServiceProtocol) async -> ServiceProblem? {
        let name = Self.name(of: service)
        guard let awaited = service as? any AsyncCoordinatorService else {
            service.stop()
            sink?(.serviceStopped(name))
            return nil
        }
        let started = servicesNotStarted.remove(ObjectIdentifier(awaited)) == nil
        let problem: ServiceProblem? =
            switch await withTimeout(serviceTimeout, { await awaited.stop() }) {
            case .done, .failed: nil
            case .timedOut: ServiceProblem(service: name, kind: .stopTimedOut(serviceTimeout))
            }
        if let problem {
            sink?(.serviceProblem(problem))
        } else if started {
            sink?(.serviceStopped(name))
        }
        return problem
    }

    /// Forgets that `service`, no longer one of this coordinator's, did not start: after the service work
    /// queued in the background, whose stop of it (``stop()`` queued one) must still see that it did not.
    func forgetNotStarted(_ service: any CoordinatorServiceProtocol) {
        guard servicesNotStarted.contains(ObjectIdentifier(service)) else { return }
        // The service is held until then, so that no other takes its identifier meanwhile.
        inBackground { coordinator in coordinator.servicesNotStarted.remove(ObjectIdentifier(service)) }
    }

    /// Runs `work` after any service work already running in the background, so that services start,
    /// stop and are replaced in the order they were asked to.
    func inBackground(_ work: @escaping @MainActor (BaseFlowCoordinator) async -> Void) {
        let previous = backgroundServiceWork
        backgroundServiceWork = Task { @MainActor in
            await previous?.value
            await work(self)
        }
    }
}

/// How a piece of work given a time limit came out.
enum TimedOutcome: Sendable {
    case done
    case failed(any Error)
    case timedOut
}

/// Runs `work` on the main actor for at most `timeout`.
///
/// Work still running then is cancelled and left behind rather than awaited, so that one stuck service
/// cannot hold up the others: the caller goes on at once.
@MainActor
func withTimeout(_ timeout: Duration, _ work: @escaping @MainActor () async throws -> Void) async -> TimedOutcome {
    let (outcomes, continuation) = AsyncStream<TimedOutcome>.makeStream()
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
