/// The requests a coordinator tree holds for redirects, kept on its root.
@MainActor
final class RedirectState {
    /// One held request and what it waits for.
    struct Hold {
        var held: HeldRequest
        let rule: InstalledGuard
        /// Where the request was asked, and is resumed.
        weak var coordinator: BaseFlowCoordinator?
        var footprint: RedirectFootprint
        /// When the redirect was itself redirected: the id of the held request that is that redirect. Its
        /// resumption starts this hold's flow.
        var awaiting: Int?
        /// The rest of the deep link the request is a step of.
        var link: PendingDeepLink?
        /// The guards that redirected the request already; none of them may redirect it again.
        var redirectedBy: [ObjectIdentifier]
    }

    var holds: [Hold] = []
    /// How many guarded requests and module actions are under way.
    var depth = 0
    /// Whether a redirect's flow may have completed during them.
    var needsSettle = false
    var isSettling = false
    var nextID = 1
    /// The guards whose redirect is being sent, which let every request through meanwhile.
    var activeRedirects: [ObjectIdentifier] = []
    /// The modules whose actions are under way (while requests are held), innermost last, each with the
    /// ``depth`` it runs at.
    var actingModules: [(module: FlowModule, depth: Int)] = []
    /// The flows of redirects asked for directly, which hold nothing, while they may be under way.
    var unheldFlows: [(rule: InstalledGuard, footprint: RedirectFootprint)] = []
    /// The request being resumed, with the guards that redirected it, until the chain reads them.
    var resumption: (request: CoordinationRequest, module: Coordinated, redirectedBy: [ObjectIdentifier])?

    /// Whether a request `coordinator` was asked for by `module` comes from the flow of a redirect `rule`
    /// sent that is still under way in `root`'s tree.
    func isOfFlow(
        redirectedBy rule: InstalledGuard, _ module: Coordinated, in coordinator: BaseFlowCoordinator,
        root: BaseFlowCoordinator
    ) -> Bool {
        if holds.contains(where: { $0.rule === rule && $0.footprint.contains(module, in: coordinator) }) { return true }
        guard !unheldFlows.isEmpty else { return false }
        unheldFlows.removeAll { !$0.footprint.isAlive(in: root) }
        return unheldFlows.contains { $0.rule === rule && $0.footprint.contains(module, in: coordinator) }
    }

    /// Sends `rule`'s redirect, asked for directly (`send`), as a redirect is sent: `rule` lets every request
    /// through meanwhile, and afterwards lets through the requests of the flow it leaves behind.
    func sendingFlow(
        of rule: InstalledGuard, root: BaseFlowCoordinator, _ send: () -> CoordinationOutcome
    ) -> CoordinationOutcome {
        let before = TreeSnapshot(root)
        activeRedirects.append(ObjectIdentifier(rule))
        let outcome = send()
        activeRedirects.removeLast()
        // Flows that ended since are forgotten here too, so asking for redirects directly never piles them up.
        unheldFlows.removeAll { !$0.footprint.isAlive(in: root) }
        if outcome.isHandled { unheldFlows.append((rule, before.footprint(in: root))) }
        return outcome
    }

    /// The guards that redirected `request` from `module` before, when it is the request being resumed.
    func takeResumption(of request: CoordinationRequest, from module: Coordinated) -> [ObjectIdentifier] {
        guard let resumption, resumption.request == request, resumption.module == module else { return [] }
        self.resumption = nil
        return resumption.redirectedBy
    }
}
