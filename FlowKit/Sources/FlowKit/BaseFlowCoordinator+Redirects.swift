/// Redirects: a request a guard redirected is held until the flow its redirect started completes.
///
/// **The redirect's flow** is what sending the redirect left behind: the modal layers and tabs it opened,
/// the modules it added to the layers that were already there, the child coordinators it opened and the
/// managers it left working. It **completes** when none of that is left: the person finished it (a
/// sign-in form that closes itself), dismissed it or backed out of it, or a new root replaced it.
///
/// Completion is checked when modules are removed, a manager or a child flow finishes, but only once the
/// outermost guarded request or module action under way has returned, so that a flow that closes its
/// screens and then asks for more (sign-in closing its form, then showing home) is judged after all of
/// it. Then the guard that redirected the request is asked again: if it lets the request through, the
/// request is **resumed**, sent again from where it was asked (the same coordinator and module) through the
/// whole chain; if it still redirects, the redirect was **cancelled** and the request is dropped, which
/// ``FlowEvent/redirectCancelled(_:reason:)`` reports. A redirect that leaves nothing behind completes at
/// once. A redirect that is not handled (no route, failed, queued for dependencies) fails the request.
///
/// Loops cannot form: while a guard's redirect is being sent, that guard lets every request through, so a
/// redirect target it also guards is not redirected again; a guard lets its own redirect through whenever
/// it is asked for, and the requests of its flow (sent by the flow's modules, or in the child flows the
/// redirect or its modules' actions opened, but not a deep link's steps, which come from outside the flow
/// whatever module is on screen); a resumed request that the same guard redirects again fails
/// instead; and any other request redirected while the same guard's flow to the same target is under way
/// waits for that flow rather than starting a second one.
///
/// A held deep link step holds the rest of its link, which runs after the step is resumed and is
/// dropped with it.
extension BaseFlowCoordinator {
    /// The requests held for a redirect in this coordinator's tree, oldest first.
    public var heldRequests: [HeldRequest] {
        rootCoordinator.redirectState?.holds.map(\.held) ?? []
    }

    /// The root's redirect state, made when first needed.
    var redirects: RedirectState {
        if let redirectState { return redirectState }
        let state = RedirectState()
        redirectState = state
        return state
    }

    /// Sends `target` from `module` for `request`, and holds `request`, with the rest of the deep link it is
    /// a step of, until the flow it starts completes.
    func redirect(
        _ request: CoordinationRequest, from module: Coordinated, to target: CoordinationRequest,
        by installed: InstalledGuard, redirectedBy: [ObjectIdentifier], root: BaseFlowCoordinator,
        state: RedirectState, deepLink link: PendingDeepLink?
    ) -> CoordinationOutcome {
        let held = HeldRequest(
            id: state.nextID, request: request, module: module, redirect: target, guardName: installed.rule.name)
        state.nextID += 1
        var hold = RedirectState.Hold(
            held: held, rule: installed, coordinator: self, footprint: RedirectFootprint(), awaiting: nil, link: link,
            redirectedBy: redirectedBy + [ObjectIdentifier(installed)])
        let sink = self.sink
        // The same guard's flow to the same place is under way: wait for it rather than start another.
        if let under = state.underWay(redirectedBy: installed, to: target, in: root) {
            hold.footprint = under.footprint
            hold.awaiting = under.awaiting
            state.append(hold, joining: under)
            sink?(.held(held))
            return .redirected(held)
        }
        sink?(.redirecting(held))
        let before = TreeSnapshot(root)
        state.activeRedirects.append(ObjectIdentifier(installed))
        let outcome = requestCoordination(target, from: module)
        state.activeRedirects.removeLast()
        switch outcome {
        case .handled:
            hold.footprint = before.footprint(in: root)
        case .redirected(let inner):
            hold.awaiting = inner.id
        case .unhandled, .queued, .failed:
            let error = FlowError(
                "guard '\(installed.rule.name)' redirected '\(request.name)' to '\(target.name)', which \(Self.phrase(outcome, of: target))"
            )
            sink?(.failed(request, from: module, error: error))
            return .failed(error)
        }
        state.append(hold)
        // A redirect that left nothing behind has completed already.
        state.needsSettle = true
        sink?(.held(held))
        return .redirected(held)
    }

    private static func phrase(_ outcome: CoordinationOutcome, of target: CoordinationRequest) -> String {
        switch outcome {
        case .unhandled: "no route handles"
        case .queued(let keys):
            "is queued until \(keys.map(\.rawValue).joined(separator: ", ")) is set; a redirect must be handled at once"
        default: "\(outcome)"
        }
    }

    // MARK: - Settling

    /// Runs `body`, `module`'s action, as one step: held requests whose redirect's flow it completes are
    /// settled after it, not halfway through it. A child flow it opens joins the redirect flows `module` is
    /// part of.
    func settlingHeldRequests<Result>(actionOf module: FlowModule, _ body: () -> Result) -> Result {
        let root = rootCoordinator
        guard let state = root.redirectState, !state.holds.isEmpty || !state.unheldFlows.isEmpty else {
            return body()
        }
        let step = root.beginRedirectStep()
        state.actingModules.append((module, state.depth))
        defer {
            state.actingModules.removeLast()
            root.endRedirectStep(step)
        }
        return body()
    }

    /// On the root: `child` was just opened; by an action of a module of redirect flows itself (not by a
    /// request the action made, which passed the guards and so went one deeper), it joins them.
    func noteOpened(_ child: BaseFlowCoordinator) {
        guard let state = redirectState, let (module, depth) = state.actingModules.last, depth == state.depth else {
            return
        }
        let isOfFlow = { (footprint: RedirectFootprint) in footprint.modules.contains { $0.object === module } }
        for index in state.holds.indices where isOfFlow(state.holds[index].footprint) {
            state.addCoordinator(child, toHoldAt: index)
        }
        for index in state.unheldFlows.indices where isOfFlow(state.unheldFlows[index].footprint) {
            state.unheldFlows[index].footprint.coordinators.append(WeakObject(child))
        }
    }

    /// On the root: starts a step (an action, a child finishing with its children) after which held
    /// requests are settled. Returns `nil`, and costs nothing more, when no request is held.
    func beginRedirectStep() -> RedirectState? {
        guard let state = redirectState, !state.holds.isEmpty else { return nil }
        state.depth += 1
        return state
    }

    /// On the root: ends a step ``beginRedirectStep()`` started, settling the held requests if it was the
    /// outermost and a redirect's flow may have completed.
    func endRedirectStep(_ state: RedirectState?) {
        guard let state else { return }
        state.depth -= 1
        if state.depth == 0, state.needsSettle { settleHeldRequests() }
    }

    /// Called on the root when something of a redirect's flow may have gone: settles the held requests
    /// now, or after the outermost guarded request or action under way.
    func noteRedirectProgress() {
        guard let state = redirectState, !state.holds.isEmpty else { return }
        if state.depth == 0 { settleHeldRequests() } else { state.needsSettle = true }
    }

    /// Resumes or drops, oldest first, every held request whose redirect's flow has completed.
    func settleHeldRequests() {
        guard let state = redirectState, !state.isSettling else { return }
        state.isSettling = true
        defer { state.isSettling = false }
        while true {
            state.needsSettle = false
            guard let index = state.firstCompleted(in: self) else { return }
            conclude(state.remove(at: index), state)
        }
    }

    private func conclude(_ hold: RedirectState.Hold, _ state: RedirectState) {
        guard let coordinator = hold.coordinator, coordinator.rootCoordinator === self else {
            return cancel(hold, state, reason: "the coordinator it was asked in has finished")
        }
        let decision = hold.rule.rule.decide(hold.held.request, from: hold.held.module, in: coordinator)
        if case .redirect = decision {
            // The flow may have completed or been dismissed: either way it ended, and the guard says why not.
            let why = (hold.rule.rule as? RedirectGuard).map { ": " + coordinator.unmet($0.unless) } ?? ""
            return cancel(
                hold, state,
                reason:
                    "the flow of \(hold.held.redirect.name) ended, and guard '\(hold.held.guardName)' still redirects it\(why)"
            )
        }
        resume(hold, at: coordinator, state)
    }

    /// Why `condition` does not hold here, naming what would make it: `context user is not set
    /// (SessionService provides the context)`, or `context account.onboarded is false (...)`.
    func unmet(_ condition: GuardCondition) -> String {
        switch condition {
        case .context(let path):
            var owner: BaseFlowCoordinator? = self
            while let current = owner, current.contextProviders.isEmpty { owner = current.parent }
            let names = owner?.contextProviders.map(Self.name(of:)) ?? []
            let source =
                switch names.count {
                case 0: "no service provides the context"
                case 1: "\(names[0]) provides the context"
                default: "\(names.dropLast().joined(separator: ", ")) and \(names[names.count - 1]) provide the context"
                }
            // The condition wants a value that is neither null nor false: say which it found.
            let found = context.value(atPath: path).map { "is \($0)" } ?? "is not set"
            return "context \(path) \(found) (\(source))"
        case .dependency(let key):
            return "dependency \(key) is not set"
        }
    }

    private func resume(_ hold: RedirectState.Hold, at coordinator: BaseFlowCoordinator, _ state: RedirectState) {
        sink?(.resuming(hold.held))
        let hasDependents = state.hasDependents(hold.held.id)
        let before = hasDependents ? TreeSnapshot(self) : nil
        state.resumption = (hold.held.request, hold.held.module, hold.redirectedBy)
        let outcome = coordinator.requestCoordination(
            hold.held.request, from: hold.held.module, continuation: RequestContinuation(deepLink: hold.link))
        state.resumption = nil
        if let before {
            // The held request was itself a redirect: the requests waiting for it wait for its flow now.
            for index in state.holds.indices where state.holds[index].awaiting == hold.held.id {
                switch outcome {
                case .handled:
                    state.setFlow(ofHoldAt: index, to: before.footprint(in: self), awaiting: nil)
                case .redirected(let inner):
                    state.setFlow(ofHoldAt: index, to: state.holds[index].footprint, awaiting: inner.id)
                default:  // nothing of the flow exists: it completes now, and its guard decides
                    state.setFlow(ofHoldAt: index, to: state.holds[index].footprint, awaiting: nil)
                }
            }
        }
        if let link = hold.link { coordinator.continueDeepLink(link, after: outcome) }
    }

    /// On the root: drops every held request, each reported with `reason`, and forgets the flows they wait
    /// for (the presentation they are in is going).
    func dropHeldRequests(reason: String) {
        guard let state = redirectState else { return }
        let holds = state.removeAll()
        state.unheldFlows.removeAll()
        for hold in holds { sink?(.redirectCancelled(hold.held, reason: reason)) }
    }

    private func cancel(_ hold: RedirectState.Hold, _ state: RedirectState, reason: String) {
        var reason = reason
        if let link = hold.link, link.next < link.steps.count {
            let dropped = link.steps.count - link.next
            reason += "; the deep link ends here, its \(dropped) later step\(dropped == 1 ? " is" : "s are") dropped"
        }
        sink?(.redirectCancelled(hold.held, reason: reason))
        // Requests waiting for this one's resumption as their redirect: it will not happen, so their flow
        // has completed with nothing, and their guards decide.
        guard state.hasDependents(hold.held.id) else { return }
        for index in state.holds.indices where state.holds[index].awaiting == hold.held.id {
            state.setFlow(ofHoldAt: index, to: RedirectFootprint(), awaiting: nil)
        }
    }
}
