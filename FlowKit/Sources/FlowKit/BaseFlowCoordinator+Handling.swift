/// Handling a routed request: the manager is made, started, and what it asks for is done.
extension BaseFlowCoordinator {
    /// Handles `request` with a manager `resolved` makes, reported as `managerName`: the one path every
    /// routed request takes, whether or not someone listens, restoration is on or a result is awaited.
    /// `managerName` is taken over: it becomes the outcome's, without a copy.
    func handle(
        _ request: CoordinationRequest, from module: Coordinated, resolved: ManagerFactory.Resolved,
        name managerName: consuming String, _ continuation: RequestContinuation
    ) -> CoordinationOutcome {
        if resolved.hasRequirements,
            let queued = enqueueUnlessMet(request, from: module, resolved, deepLink: continuation.deepLink)
        {
            return queued
        }
        // Taken now: the manager may finish this coordinator (detaching it from its listeners) as it works.
        let sink = self.sink
        // With restoration on, the outermost request under way is the step that restores what it leads to.
        let isStep = treeRouter.beginRestorationStep(request, from: module, in: self)
        // A manager whose result a module's action waits for, kept to tell, once the step ends, whether it
        // still owes that result (see ``RestorationRecorder/endStep(awaiting:in:)``).
        var owing: (any RequestCoordinatorManager)?
        defer { if isStep { treeRouter.recorder?.endStep(awaiting: owing, in: self) } }
        let manager = resolved.make(self)
        let flow = resolved.makesFlowManagers ? manager as? FlowManager : nil
        if let onResult = continuation.onResult {
            treeRouter.ledger.awaitResult(of: manager, onResult)
            if isStep { owing = manager }
        }
        if sink != nil {
            if let flow {
                flow.reportedName = managerName
            } else {
                treeRouter.ledger.names[ObjectIdentifier(manager)] = managerName
            }
            EventSink.send(.handling(request, from: module, manager: managerName, coordinator: name), to: sink)
        }
        // Held by this call while `start` runs, so that it cannot end before it has answered.
        if let flow {
            flow.holdCount += 1
            flow.startingCount += 1
        } else {
            starting.append(ObjectIdentifier(manager))
        }
        let step: ManagerStep
        do {
            step = try manager.start(request, from: module)
        } catch {
            return startFailed(request, from: module, manager, flow: flow, error, sink: sink)
        }
        if let flow { flow.holdCount -= 1 } else { starting.removeLast() }
        let finishedInStart = endStart(of: manager, flow: flow)
        switch consume step {
        case .present(let presented, let style):
            present(presented, style: style, by: consume manager, flow: consume flow, sink: sink)
        case .working where finishedInStart:
            // It finished while it started (`finish()` from a child flow's `onResult` that ran at once): it
            // has nothing left to end it, so it ends now rather than working for ever.
            endIfReleased(manager, flow: flow, reason: .finished, sink: sink)
        case .working:
            addWorking(manager)
            treeRouter.recorder?.noteWorking(manager)
        case .finished:
            endIfReleased(manager, flow: flow, reason: .finished, sink: sink)
        }
        if sink != nil {
            EventSink.send(.handled(request, from: module, manager: managerName, coordinator: name), to: sink)
        }
        return .handled(manager: consume managerName)
    }

    /// Queues `request`, with the rest of its deep link, when the dependencies `resolved`'s manager needs
    /// are not all set.
    ///
    /// Never inlined: a queued request's deadline is a `ContinuousClock.Instant`, whose size `handle` would
    /// otherwise look up to lay out its frame on every request, queued or not.
    ///
    /// - Returns: The `queued` outcome, or `nil` when they are set.
    @inline(never)
    private func enqueueUnlessMet(
        _ request: CoordinationRequest, from module: Coordinated, _ resolved: ManagerFactory.Resolved,
        deepLink: PendingDeepLink?
    ) -> CoordinationOutcome? {
        let requirements = resolved.requirements
        let missing = missingDependencies(requirements)
        return missing.isEmpty
            ? nil : enqueue(request, from: module, waitingFor: requirements, missing, deepLink: deepLink)
    }

    /// Notes that the `start` of `manager` (`flow` when it is a ``FlowManager``) returned.
    ///
    /// - Returns: Whether it asked to finish while it started.
    private func endStart(of manager: any RequestCoordinatorManager, flow: FlowManager?) -> Bool {
        if let flow {
            flow.startingCount -= 1
            guard flow.finishedWhileStarting, flow.startingCount == 0 else { return false }
            flow.finishedWhileStarting = false
            return true
        }
        guard !finishedWhileStarting.isEmpty else { return false }
        return finishedWhileStarting.remove(ObjectIdentifier(manager)) != nil
    }

    /// Lets go of `manager`, whose `start` threw `error`: the request failed.
    private func startFailed(
        _ request: CoordinationRequest, from module: Coordinated, _ manager: any RequestCoordinatorManager,
        flow: FlowManager?, _ error: any Error, sink: EventSink?
    ) -> CoordinationOutcome {
        if let flow { flow.holdCount -= 1 } else { starting.removeLast() }
        _ = endStart(of: manager, flow: flow)
        let error = FlowError(wrapping: error)
        treeRouter.ledger.give(.failed(error), to: manager)
        endIfReleased(manager, flow: flow, reason: .finished, sink: sink)
        return fail(request, from: module, error)
    }
}
