/// Guards: the ordered chain every request passes before it is routed.
///
/// A coordinator's chain is its ancestors' guards, the root's first, then its own: a child sees the
/// guards of the coordinators above it, as it inherits their routes. Each guard in turn lets the request
/// proceed, rewrites it (the later guards see the new request), rejects it (its outcome is
/// ``CoordinationOutcome/failed(_:)``) or redirects it (see ``heldRequests``). A request that passes
/// every guard is routed. With no guard in the chain, a request costs one `nil` check more.
extension BaseFlowCoordinator {
    /// This coordinator's own guards, in the order they are asked, after its ancestors'. Setting them
    /// replaces them at once, for this coordinator and every descendant; requests already held stay
    /// held and are judged by the guard that redirected them.
    public var guards: [any RequestGuard] {
        get { installedGuards.map(\.rule) }
        set {
            installedGuards = newValue.map(InstalledGuard.init)
            refreshGuardChain()
        }
    }

    /// Adds `guard` after this coordinator's other guards.
    public func addGuard(_ guard: any RequestGuard) {
        installedGuards.append(InstalledGuard(`guard`))
        refreshGuardChain()
    }

    /// Every guard a request sent to this coordinator passes, in order: the root's first, this
    /// coordinator's last.
    public var guardChain: [any RequestGuard] {
        (guardChainBoxes ?? []).map(\.rule)
    }

    /// Recomputes the chain of this coordinator and, if it changed, of its descendants, after its guards changed.
    func refreshGuardChain() {
        if refreshOwnGuardChain() { refreshDescendants() }
    }

    /// Recomputes this coordinator's chain from its parent's.
    ///
    /// - Returns: Whether it changed (other guards, or the same in another order): only then can its
    ///   descendants' chains have.
    func refreshOwnGuardChain() -> Bool {
        let inherited = hasParent ? parent?.guardChainBoxes : nil
        let chain = installedGuards.isEmpty ? inherited : (inherited ?? []) + installedGuards
        if let chain, let current = guardChainBoxes {
            if chain.count == current.count && zip(chain, current).allSatisfy({ $0 === $1 }) { return false }
        } else if chain == nil && guardChainBoxes == nil {
            return false
        }
        guardChainBoxes = chain
        return true
    }

    /// Passes `request` through `chain`, then routes what is left of it with `continuation`: a deep link
    /// waits on what the request became, and a result is awaited only from a request no guard rewrote.
    func requestThroughGuards(
        _ request: CoordinationRequest, from module: Coordinated, chain: [InstalledGuard],
        continuation: RequestContinuation
    ) -> CoordinationOutcome {
        let root = rootCoordinator
        let state = root.redirects
        // Held requests are settled only once the outermost guarded request is over, never halfway
        // through the work of a manager.
        state.depth += 1
        defer {
            state.depth -= 1
            if state.depth == 0, state.needsSettle { root.settleHeldRequests() }
        }
        let redirectedBy = state.takeResumption(of: request, from: module)
        var current = request
        var continuation = continuation
        var ownRedirect: InstalledGuard?
        for installed in chain where !state.activeRedirects.contains(ObjectIdentifier(installed)) {
            switch installed.rule.decide(current, from: module, in: self) {
            case .proceed:
                continue
            case .rewrite(let rewritten):
                sink?(.rewritten(current, to: rewritten, from: module, guard: installed.rule.name))
                current = rewritten
                continuation.onResult = nil
            case .reject(let error):
                return reject(
                    current, from: module, FlowError("rejected by guard '\(installed.rule.name)': \(error.message)"))
            case .redirect(let target):
                // A request that no route handles is reported as such, rather than sent to sign in first.
                guard canRoute(current, from: module) else { continue }
                // A request of the flow it redirected to would wait for itself. A deep link's step is sent
                // from the module on screen, which may be the flow's (the sign-in form), but comes from outside
                // it: it is guarded as any other.
                if continuation.deepLink == nil, state.isOfFlow(redirectedBy: installed, module, in: self, root: root) {
                    continue
                }
                // Its own redirect, asked for directly, is sent as the redirect would be: its flow is let
                // through.
                if current.name == target.name {
                    ownRedirect = installed
                    continue
                }
                guard !redirectedBy.contains(ObjectIdentifier(installed)) else {
                    let error = FlowError(
                        "'\(current.name)' redirected again by guard '\(installed.rule.name)' after the flow of "
                            + "'\(target.name)' completed; a guard must let a request through once its redirect did its work"
                    )
                    return reject(current, from: module, error)
                }
                return redirect(
                    current, from: module, to: target, by: installed, redirectedBy: redirectedBy, root: root,
                    state: state, deepLink: continuation.deepLink)
            }
        }
        guard let ownRedirect else { return route(current, from: module, continuation: continuation) }
        return state.sendingFlow(of: ownRedirect, root: root) {
            route(current, from: module, continuation: continuation)
        }
    }

    /// Whether a manager is mapped for `request` from `module` here or in an ancestor.
    private func canRoute(_ request: CoordinationRequest, from module: Coordinated) -> Bool {
        var coordinator: BaseFlowCoordinator? = self
        while let current = coordinator {
            if current.factory(for: request.name, from: module) != nil { return true }
            coordinator = current.parent
        }
        return false
    }

    private func reject(_ request: CoordinationRequest, from module: Coordinated, _ error: FlowError)
        -> CoordinationOutcome
    {
        sink?(.failed(request, from: module, error: error))
        return .failed(error)
    }
}

/// A guard as installed on a coordinator. Its identity tells guards apart: which guard is sending a
/// redirect (and is skipped meanwhile), which guard redirected a held request.
@MainActor
final class InstalledGuard {
    let rule: any RequestGuard

    init(_ rule: any RequestGuard) {
        self.rule = rule
    }
}
