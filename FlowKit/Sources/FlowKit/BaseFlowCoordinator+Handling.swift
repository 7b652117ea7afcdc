/// Handling a routed request: the manager is made, started, and what it asks for is done.
extension BaseFlowCoordinator {
    /// Handles `request` with the manager `entry`'s ready factory makes.
    ///
    /// Neither the entry nor what it holds is retained: the coordinator keeps its route table, even one it
    /// replaces meanwhile, until the request has been handled.
    @inline(__always)
    func handle(_ request: CoordinationRequest, from module: Coordinated, readyIn entry: Unmanaged<RouteTable.Entry>)
        -> CoordinationOutcome
    {
        handlingDepth &+= 1
        defer {
            handlingDepth &-= 1
            if handlingDepth == 0, !retiredRoutes.isEmpty { retiredRoutes.removeAll() }
        }
        return entry.withGuaranteed { entry in
            entry.ready.unsafelyUnwrapped.withGuaranteed { resolved in
                handle(request, from: module, resolved: resolved, name: entry.readyName)
            }
        }
    }

    /// Handles `request` with a manager `resolved` makes, kept by `entry`'s factory: reported as `resolved`
    /// names itself, else as the factory is named.
    ///
    /// Neither is retained: the coordinator keeps its route table, even one it replaces meanwhile, until
    /// the request has been handled, and the factory keeps every resolution it made.
    @inline(__always)
    func handle(
        _ request: CoordinationRequest, from module: Coordinated, resolved: Unmanaged<ManagerFactory.Resolved>,
        nameIn entry: Unmanaged<RouteTable.Entry>
    ) -> CoordinationOutcome {
        handlingDepth &+= 1
        defer {
            handlingDepth &-= 1
            if handlingDepth == 0, !retiredRoutes.isEmpty { retiredRoutes.removeAll() }
        }
        return entry.withGuaranteed { entry in
            resolved.withGuaranteed { resolved in
                if let name = resolved.name { return handle(request, from: module, resolved: resolved, name: name) }
                return handle(request, from: module, resolved: resolved, name: entry.readyName)
            }
        }
    }

    /// Handles `request` with a manager `resolved` makes, reported as `managerName`.
    ///
    /// When nothing listens, restoration is off and no result is awaited (the common case), none of their
    /// bookkeeping is looked at twice: ``handleRecorded(_:from:resolved:name:)`` does it otherwise.
    func handle(
        _ request: CoordinationRequest, from module: Coordinated, resolved: ManagerFactory.Resolved,
        name managerName: String
    ) -> CoordinationOutcome {
        if resolved.hasRequirements, let queued = enqueueUnlessMet(request, from: module, resolved) { return queued }
        guard !router.isTraced, router.recorder == nil else {
            return handleRecorded(request, from: module, resolved: resolved, name: managerName)
        }
        let manager = resolved.make(self)
        // Unmanaged: `manager` holds it for as long as this runs.
        let held =
            resolved.makesFlowManagers
            ? Unmanaged.passUnretained(unsafeDowncast(manager as AnyObject, to: FlowManager.self)) : nil
        if router.ledger.isAwaitingResult { router.ledger.adoptPendingResult(request, for: manager) }
        // Held by this call while `start` runs, so that it cannot end before it has answered.
        if let held { FlowManager.count(held, 1) } else { starting.append(ObjectIdentifier(manager)) }
        let step: ManagerStep
        do {
            step = try manager.start(request, from: module)
        } catch {
            return startFailed(request, from: module, manager, flow: held?.takeUnretainedValue(), error, sink: nil)
        }
        if let held { FlowManager.count(held, -1) } else { starting.removeLast() }
        switch consume step {
        case .present(let presented, let style):
            // The common case, as `present` has it: a new module, inline on the main stack shown alone.
            if case .inline = style, presented.shownCount == 0, anchor == router.main.id, router.showsMainAlone {
                presented.heldManager = held
                presented.manager = consume manager
                presented.presenter = presence
                presentedCount += 1
                // The router borrowed: pushing counts the module's holds and screens, and replaces nothing.
                Unmanaged.passUnretained(router).withGuaranteed { $0.pushOntoMain(presented) }
            } else {
                present(presented, style: style, by: manager, flow: held?.takeUnretainedValue(), sink: nil)
            }
        case .working: addWorking(manager)
        case .finished: endIfReleased(manager, flow: held?.takeUnretainedValue(), reason: .finished, sink: nil)
        }
        return .handled(manager: managerName)
    }

    /// Handles `request` as ``handle(_:from:resolved:name:)`` does, reporting events and recording the
    /// step for restoration.
    private func handleRecorded(
        _ request: CoordinationRequest, from module: Coordinated, resolved: ManagerFactory.Resolved,
        name managerName: String
    ) -> CoordinationOutcome {
        // Taken now: the manager may finish this coordinator (detaching it from its listeners) as it works.
        let sinkBox = self.sink
        // Held by `sinkBox` until the request has been handled, and used unretained meanwhile
        // (`withExtendedLifetime` would cost a dynamic check that its closure runs on the main actor).
        defer { _fixLifetime(sinkBox) }
        let sink = sinkBox.map(Unmanaged.passUnretained)
        // With restoration on, the outermost request under way is the step that restores what it leads to.
        // The router unretained: nothing in `begin` or `end` replaces it.
        let isStep = Unmanaged.passUnretained(router).withGuaranteed {
            $0.recorder?.begin(request, from: module, in: self) ?? false
        }
        defer { if isStep { Unmanaged.passUnretained(router).withGuaranteed { $0.recorder?.end() } } }
        let manager = resolved.make(self)
        // Unmanaged: `manager` holds it for as long as this runs.
        let held =
            resolved.makesFlowManagers
            ? Unmanaged.passUnretained(unsafeDowncast(manager as AnyObject, to: FlowManager.self)) : nil
        if router.ledger.isAwaitingResult { router.ledger.adoptPendingResult(request, for: manager) }
        if let sink {
            if let held {
                held.withGuaranteed { $0.reportedName = managerName }
            } else {
                router.ledger.names[ObjectIdentifier(manager)] = managerName
            }
            Self.send(.handling(request, from: module, manager: managerName, coordinator: name), to: sink)
        }
        if let held { FlowManager.count(held, 1) } else { starting.append(ObjectIdentifier(manager)) }
        let step: ManagerStep
        do {
            step = try manager.start(request, from: module)
        } catch {
            return startFailed(request, from: module, manager, flow: held?.takeUnretainedValue(), error, sink: sinkBox)
        }
        if let held { FlowManager.count(held, -1) } else { starting.removeLast() }
        switch consume step {
        case .present(let presented, let style):
            // The common case, as in `handle`, with the step recorded and the presentation reported.
            if case .inline = style, presented.shownCount == 0, anchor == router.main.id, router.showsMainAlone {
                if router.recorder != nil {
                    presented.restorationSequence = router.restorationStep(presentedBy: manager)
                }
                let presentedName = sink == nil ? nil : presented.name
                presented.heldManager = held
                presented.manager = consume manager
                presented.presenter = presence
                presentedCount += 1
                // The router borrowed: pushing counts the module's holds and screens, and replaces nothing.
                Unmanaged.passUnretained(router).withGuaranteed { $0.pushOntoMain(presented) }
                if let sink, let presentedName { sink(.presented(presentedName, style: .inline)) }
            } else {
                present(presented, style: style, by: manager, flow: held?.takeUnretainedValue(), sink: sinkBox)
            }
        case .working:
            addWorking(manager)
            router.recorder?.noteWorking(manager)
        case .finished: endIfReleased(manager, flow: held?.takeUnretainedValue(), reason: .finished, sink: sinkBox)
        }
        if let sink { Self.send(.handled(request, from: module, manager: managerName, coordinator: name), to: sink) }
        return .handled(manager: managerName)
    }

    /// Hands `event` to `sink` and destroys it here, once `sink` is done with it.
    ///
    /// Unoptimized on purpose, and never inlined: the compiler, seeing which case its caller built, would
    /// have the caller destroy the case's values, and for `handling` and `handled` (four values each) it
    /// does that through their type's metadata, several times the cost of the event's own destroy, which a
    /// function that does not know the case uses. Two events of every request a listener hears.
    @inline(never) @_optimize(none)
    private static func send(_ event: consuming FlowEvent, to sink: Unmanaged<EventSink>) {
        sink(event)
    }

    /// Queues `request` when the dependencies `resolved`'s manager needs are not all set.
    ///
    /// - Returns: The `queued` outcome, or `nil` when they are set.
    private func enqueueUnlessMet(
        _ request: CoordinationRequest, from module: Coordinated, _ resolved: ManagerFactory.Resolved
    ) -> CoordinationOutcome? {
        let requirements = resolved.requirements
        let missing = missingDependencies(requirements)
        return missing.isEmpty ? nil : enqueue(request, from: module, waitingFor: requirements, missing)
    }

    /// Lets go of `manager`, whose `start` threw `error`: the request failed.
    private func startFailed(
        _ request: CoordinationRequest, from module: Coordinated, _ manager: any RequestCoordinatorManager,
        flow: FlowManager?, _ error: any Error, sink: EventSink?
    ) -> CoordinationOutcome {
        if let flow { flow.holdCount -= 1 } else { starting.removeLast() }
        let error = FlowError(wrapping: error)
        if !router.ledger.resultHandlers.isEmpty { router.ledger.give(.failed(error), to: manager) }
        endIfReleased(manager, flow: flow, reason: .finished, sink: sink)
        return fail(request, from: module, error)
    }
}
