/// Restoration: the presentation saved as the requests that built it, and rebuilt by replaying them.
///
/// ```swift
/// let coordinator = BaseFlowCoordinator(mapping: routes, services: services)
/// coordinator.isRestorable = true          // before anything is presented
/// coordinator.start()
/// ...
/// let saved = coordinator.snapshot()       // a FlowSnapshot; saved.json is its JSON
///
/// let next = BaseFlowCoordinator(mapping: routes, services: freshServices)
/// for service in freshServices { saved.restoreState(of: service, as: ...) }   // before they start
/// next.start()
/// let report = try next.restore(saved)     // what could not be restored, and why
/// ```
extension BaseFlowCoordinator {
    /// Whether this coordinator's tree records what ``snapshot()`` needs: for each module presented and
    /// each child opened, the outermost request under way (its *step*).
    ///
    /// Off by default, so that a tree nobody snapshots pays one `nil` check per request for it. Turn it on
    /// before the requests whose screens should come back; it applies to the whole tree (every
    /// coordinator of a tree shares one ``Router``).
    public var isRestorable: Bool {
        get { router.recorder != nil }
        set {
            guard newValue != isRestorable else { return }
            router.recorder = newValue ? RestorationRecorder() : nil
            // The next recorder numbers its steps from 0 again: nothing may still refer to this one's.
            if !newValue { rootCoordinator.forgetRestorationSequences() }
        }
    }

    /// The presentation of this coordinator's whole tree, as the steps that rebuild it.
    ///
    /// Each screen and open child is kept with the step it came from: the request that was not made while
    /// another was handled and that led to it. The steps are those of what is on screen now, in the order
    /// they were first taken; a request whose screens are all gone is not one. ``FlowSnapshot/services``
    /// is left empty: whoever owns the services saves their state (``FlowSnapshot/saveState(of:as:)``).
    /// Screens presented outside any request, or while ``isRestorable`` was off, are kept with no step.
    public func snapshot() -> FlowSnapshot {
        let root = rootCoordinator
        var paths: [ObjectIdentifier: [String]] = [ObjectIdentifier(root): []]
        var openChildren: [(coordinator: BaseFlowCoordinator, path: [String])] = []
        root.forEachDescendant { child, parent in
            let childPath = (paths[ObjectIdentifier(parent)] ?? []) + [child.name]
            paths[ObjectIdentifier(child)] = childPath
            openChildren.append((child, childPath))
        }

        // The steps of what is on screen and open, and of the requests under way (a manager working on what it
        // will show), in the order they were taken; then the tab each first shows a screen in, in layer order.
        var sequences = Set(
            router.modules.compactMap(\.restorationSequence)
                + openChildren.compactMap(\.coordinator.restorationSequence))
        if let working = router.recorder?.workingSteps { sequences.formUnion(working) }
        let ordered = sequences.sorted().compactMap { router.recorder?.step($0) }
        let index = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1.sequence, $0) })
        var firstTab: [Int: Int?] = [:]
        func note(_ stack: [FlowModule], tab: Int?) {
            for case let position? in stack.map({ $0.restorationSequence.flatMap { index[$0] } })
            where firstTab[position] == nil {
                firstTab[position] = .some(tab)
            }
        }
        note(router.main.stack, tab: nil)
        for (position, tab) in router.tabs.enumerated() { note(tab.stack, tab: position) }
        for modal in router.modals { note(modal.stack, tab: nil) }

        func screens(_ stack: [FlowModule]) -> [FlowSnapshot.Screen] {
            stack.map { module in
                FlowSnapshot.Screen(
                    module.name, coordinator: module.presenter.flatMap { paths[$0.coordinator] } ?? [],
                    step: module.restorationSequence.flatMap { index[$0] })
            }
        }
        let steps = ordered.enumerated().map { position, step in
            // A coordinator that finished since (one a sign-out closed) is replaced by its nearest open
            // ancestor, where the step's screens now are.
            var saved = FlowSnapshot.Step(
                step.request, from: step.sender, coordinator: root.openDescendant(at: step.coordinator).1,
                tab: firstTab[position] ?? nil)
            saved.action = step.action
            return saved
        }
        return FlowSnapshot(
            steps: steps,
            presentation: FlowSnapshot.Presentation(
                stack: screens(router.main.stack),
                tabs: router.tabs.map { FlowSnapshot.Presentation.Tab(title: $0.title, stack: screens($0.stack)) },
                selectedTab: router.tabs.isEmpty ? nil : router.selectedTab,
                modals: router.modals.map { screens($0.stack) }),
            children: openChildren.map { child, path in
                FlowSnapshot.Child(
                    path: path, style: child.style,
                    step: child.restorationSequence.flatMap { index[$0] })
            },
            waiting: held(in: root, paths: paths, steps: steps)
                + ([(root, [])] + openChildren).flatMap { coordinator, path in
                    coordinator.queue.map { queued in
                        FlowSnapshot.Waiting(
                            queued.request, from: queued.module, coordinator: path, guardName: nil,
                            laterSteps: queued.deepLink.map { Array($0.steps[$0.next...]) } ?? [])
                    }
                })
    }

    /// The requests the guards of `root`'s tree hold, each with the step its redirect was among `steps`.
    private func held(
        in root: BaseFlowCoordinator, paths: [ObjectIdentifier: [String]], steps: [FlowSnapshot.Step]
    ) -> [FlowSnapshot.Waiting] {
        (root.redirectState?.holds ?? []).compactMap { hold in
            guard let coordinator = hold.coordinator else { return nil }
            let path = paths[ObjectIdentifier(coordinator)] ?? []
            let held = hold.held
            // The step its redirect was: sent from where the request was asked, in the same coordinator.
            let step = steps.firstIndex {
                $0.action == nil && $0.request == held.redirect && $0.sender == held.module && $0.coordinator == path
            }
            return FlowSnapshot.Waiting(
                held.request, from: held.module, coordinator: path, guardName: held.guardName,
                laterSteps: hold.link.map { Array($0.steps[$0.next...]) } ?? [], step: step)
        }
    }

    /// Rebuilds the snapshot's presentation from an empty one, replaying its steps through the current
    /// routes, and reports what could not be restored and why.
    ///
    /// Whatever is presented first goes, as a new root would take it: requests guards hold are dropped
    /// (`the presentation was replaced by a restored snapshot`), open children finish (cancelled), screens
    /// are removed, managers still working are let go, and requests waiting for dependencies are
    /// dead-lettered. Then each step is sent, in order, to the coordinator it was sent to (found by its
    /// children's names; when it is not open, the nearest ancestor that is), from the module that sent it,
    /// after selecting the tab its first screen was in; a step that is an action is performed again on the
    /// module of its name that coordinator shows (the last one). At the end the saved tab is selected. A
    /// step that finds no route or module, fails or is queued is reported, and the others are still
    /// replayed. Acts on the
    /// root of this coordinator's tree. ``FlowSnapshot/services`` is not read: give the services their
    /// state before they start (``FlowSnapshot/restoreState(of:as:)``).
    ///
    /// - Throws: ``FlowError`` when the snapshot's version is not one this FlowKit reads; nothing changes.
    @discardableResult
    public func restore(_ snapshot: FlowSnapshot) throws(FlowError) -> RestorationReport {
        guard (1...FlowSnapshot.currentVersion).contains(snapshot.version) else {
            throw FlowError(
                "snapshot version \(snapshot.version) is not one this FlowKit reads (1 to \(FlowSnapshot.currentVersion))"
            )
        }
        let root = rootCoordinator
        root.clearPresentation()
        // Each action step's module is looked up, not looked for past the screens the steps before it pushed.
        // The router of now: plugin code the restore runs could open this coordinator into another tree.
        let lookupRouter = router
        let lookingUp = lookupRouter.beginModuleLookup()
        defer { if lookingUp { lookupRouter.moduleLookup = nil } }
        var restored = 0
        var waitingRestored = 0
        var problems: [RestorationReport.Problem] = []
        // The held requests of each redirect's step, in order: looked up per step, not looked for among all.
        var holdsByStep: [Int: [FlowSnapshot.Waiting]] = [:]
        for waiting in snapshot.waiting {
            if let step = waiting.step { holdsByStep[step, default: []].append(waiting) }
        }
        for (index, step) in snapshot.steps.enumerated() {
            if let tab = step.tab, router.tabs.indices.contains(tab),
                snapshot.presentation.tabs.indices.contains(tab),
                router.tabs[tab].title == snapshot.presentation.tabs[tab].title
            {
                try? router.selectTab(tab)
            }
            let (target, path) = root.openDescendant(at: step.coordinator)
            if path.count < step.coordinator.count {
                problems.append(.init(step: index, request: step, reason: .coordinatorMissing(sentTo: path)))
            }
            // A guard's redirect: what it held is sent instead, and the guard redirects it again.
            if let holds = holdsByStep[index] {
                let outcomes = holds.map { root.resend($0, step: index, problems: &problems) }
                if outcomes.contains(where: { $0 }) { restored += 1 }
                waitingRestored += outcomes.filter { $0 }.count
                continue
            }
            let reason: RestorationReport.Problem.Reason
            let outcome: CoordinationOutcome?
            if let action = step.action {
                do throws(FlowError) {
                    outcome = try target.perform(action, payload: step.request.payload, of: step.sender)
                } catch {
                    problems.append(.init(step: index, request: step, reason: .failed(error)))
                    continue
                }
            } else {
                outcome = target.requestCoordination(step.request, from: step.sender)
            }
            switch outcome {
            case nil, .handled:  // an action that requested nothing did its work itself
                restored += 1
                continue
            case .unhandled: reason = .unhandled
            case .failed(let error): reason = .failed(error)
            case .queued(let keys): reason = .queued(waitingFor: keys)
            case .redirected(let held): reason = .redirected(held)
            }
            problems.append(.init(step: index, request: step, reason: reason))
        }
        // Queued, or held for another held request's flow: sent once every step has rebuilt the screens and
        // flows they wait for.
        for waiting in snapshot.waiting where waiting.step.map({ !snapshot.steps.indices.contains($0) }) ?? true {
            if root.resend(waiting, step: nil, problems: &problems) { waitingRestored += 1 }
        }
        if let selected = snapshot.presentation.selectedTab, router.tabs.indices.contains(selected) {
            try? router.selectTab(selected)
        }
        for screen in snapshot.presentation.screens where screen.step == nil {
            problems.append(.init(step: nil, request: nil, module: screen.module, reason: .notRecorded))
        }
        return RestorationReport(
            steps: snapshot.steps.count, restored: restored, waiting: snapshot.waiting.count,
            waitingRestored: waitingRestored, problems: problems, expected: snapshot.presentation.state,
            state: router.state)
    }

    /// Performs the action `name` of the module `module` this coordinator presented, the one shown last.
    ///
    /// - Returns: The outcome of the coordination the action requested, `nil` when it requested none.
    /// - Throws: ``FlowError`` when no such module is on screen, or it has no such action.
    private func perform(_ name: String, payload: JSONValue, of module: Coordinated) throws(FlowError)
        -> CoordinationOutcome?
    {
        guard let screen = treeRouter.lastModule(named: module, coordinatedBy: self) else {
            throw FlowError(
                "module '\(module)' is not on screen in \(FlowSnapshot.describe(pathFromRoot)), so its action '\(name)' cannot run"
            )
        }
        return try screen.perform(name, payload: payload)
    }

    /// Runs `body`, `module`'s action `name` with `payload`, as the step a snapshot replays should it present or
    /// open something itself outside any request.
    func recordingAction<Result>(
        _ name: String, payload: JSONValue, of module: Coordinated, _ body: () -> Result
    ) -> Result {
        guard let recorder = treeRouter.recorder, recorder.beginAction(name, payload: payload, of: module, in: self)
        else { return body() }
        defer { recorder.endAction() }
        return body()
    }

    /// Sends the waiting request `waiting` again, with the rest of its deep link, from where it was asked; a
    /// problem when it neither waits again (held by its guard, queued) nor is handled.
    ///
    /// - Returns: Whether it waits again or was handled.
    private func resend(_ waiting: FlowSnapshot.Waiting, step: Int?, problems: inout [RestorationReport.Problem])
        -> Bool
    {
        let (target, _) = openDescendant(at: waiting.coordinator)
        var continuation = RequestContinuation.none
        if !waiting.laterSteps.isEmpty {
            continuation.deepLink = PendingDeepLink(
                steps: [waiting.request] + waiting.laterSteps, next: 1, opener: target)
        }
        let reason: RestorationReport.Problem.Reason
        let outcome = target.requestCoordination(waiting.request, from: waiting.sender, continuation: continuation)
        switch outcome {
        case .handled:
            // Nothing holds it any more (its dependency was set, its guard lets it through): its deep link's
            // later steps run now, as they would have when it replayed.
            if let link = continuation.deepLink { target.continueDeepLink(link, after: outcome) }
            return true
        case .redirected, .queued: return true
        case .unhandled: reason = .unhandled
        case .failed(let error): reason = .failed(error)
        }
        let request = FlowSnapshot.Step(waiting.request, from: waiting.sender, coordinator: waiting.coordinator)
        problems.append(.init(step: step, request: request, reason: reason))
        return false
    }

    /// Replaces the service `old` with `new` in the same place, as ``replaceService(_:with:)`` does, except
    /// that `new` takes `state` (when it adopts ``StateHandoff`` and `state` is not `nil`) rather than
    /// `old`'s: how a restore gives a fresh service its saved state in a running coordinator.
    ///
    /// - Returns: Whether `old` was one of this coordinator's services.
    @discardableResult
    public func replaceService(
        _ old: any CoordinatorServiceProtocol, with new: any CoordinatorServiceProtocol, importing state: JSONValue?
    ) -> Bool {
        guard let index = services.firstIndex(where: { $0 === old }) else { return false }
        let running = isRunning
        // An async service is stopped and started as `replaceService(_:with:)` does, awaited in the background
        // in that order, within the timeout, a start that throws reported: its synchronous `start(with:)`
        // would drop the error, and the events would say it started before it ran.
        let awaits = old is any AsyncCoordinatorService || new is any AsyncCoordinatorService
        if running, !awaits {
            old.stop()
            sink?(.serviceStopped(Self.name(of: old)))
        }
        // At once, even for an async service: the caller (a host blaming a crash on it) sees it take the state.
        if let state, let receiver = new as? any StateHandoff { receiver.importState(state) }
        services[index] = new
        appointContextProviders()
        guard running else {
            forgetNotStarted(old)
            return true
        }
        guard awaits else {
            new.start(with: self)
            sink?(.serviceStarted(Self.name(of: new)))
            return true
        }
        inBackground { coordinator in
            await coordinator.stopService(old)
            await coordinator.startService(new)
        }
        return true
    }

    /// Forgets the steps the modules and children of this tree came from.
    private func forgetRestorationSequences() {
        for module in router.modules { module.restorationSequence = nil }
        forEachDescendant { child, _ in child.restorationSequence = nil }
    }

    /// Empties the presentation of this tree, whose root this is: held requests are dropped (rather than
    /// judged as their flows go), children finish (cancelled), modules go, working managers are let go,
    /// queued requests are dead-lettered.
    private func clearPresentation() {
        dropHeldRequests(reason: "the presentation was replaced by a restored snapshot")
        for child in children.reversed() { child.finish(with: .cancelled) }
        _ = takeWorking()
        router.recorder?.forgetWorkingManagers()
        deadLetterAll(reason: "the presentation was replaced by a restored snapshot")
        didRemove(router.removeAll())
    }

    /// The open descendant at `path` (child names from here), or the deepest one on the way that is open.
    ///
    /// - Returns: The coordinator, and the part of `path` that leads to it. Among children of one name,
    ///   the one opened last.
    private func openDescendant(at path: [String]) -> (BaseFlowCoordinator, [String]) {
        var coordinator = self
        var found: [String] = []
        for name in path {
            guard let child = coordinator.childrenByName[name]?.last else { break }
            coordinator = child
            found.append(name)
        }
        return (coordinator, found)
    }
}
