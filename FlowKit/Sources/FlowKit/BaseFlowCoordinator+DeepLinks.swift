/// Deep links: a link's steps sent as the visible module would send them, or, for a link from the root, the
/// modals dismissed and the first step sent by the root coordinator. ``BaseFlowCoordinator/open(deepLink:)`` stays
/// in the class's declaration, where plugin binaries built against FlowKit 1.0 call it.
extension BaseFlowCoordinator {
    /// Applies a deep link as ``open(deepLink:)`` does, from the app's root when `fromRoot` (FlowKit 1.8): every
    /// modal layer open is dismissed first (the child flows shown there finish, cancelled, as when a person
    /// dismisses them; a modal their code shows again as they are cancelled stays), and the first step is sent by the root coordinator, from ``Coordinated/deepLink``, so
    /// that a manager presenting it `.root` resets the main stack rather than a modal's, and one presenting it
    /// `.inline` pushes it onto the main stack, or the selected tab's. The later steps go as the visible module
    /// would send them, as in any deep link.
    @discardableResult
    public func open(deepLink steps: [CoordinationRequest], fromRoot: Bool) -> DeepLinkResult {
        guard fromRoot else { return open(deepLink: steps) }
        let root = rootCoordinator
        // As many layers as are open now: the plugin code a dismissal runs (a manager's end, a child flow's
        // result) may present a modal again, which stays, rather than be dismissed for ever.
        for _ in 0..<root.treeRouter.modalLayerCount { try? root.dismiss() }
        guard let first = steps.first else { return DeepLinkResult(applied: 0, total: 0, stoppedBy: nil) }
        let rest = PendingDeepLink(steps: steps, next: 1, opener: root)
        let outcome = root.requestCoordination(first, from: .deepLink, continuation: .init(deepLink: rest))
        guard outcome.isHandled else { return DeepLinkResult(applied: 0, total: steps.count, stoppedBy: outcome) }
        return root.apply(rest)
    }

    /// Sends the steps of `link` from its next on, each as the visible module would, until one is not handled.
    func apply(_ link: PendingDeepLink) -> DeepLinkResult {
        for index in link.next..<link.steps.count {
            let visible = treeRouter.top
            let step = link.steps[index]
            let sender = visible?.name ?? .deepLink
            let rest = PendingDeepLink(steps: link.steps, next: index + 1, opener: self)
            let coordination = visible?.coordination ?? self
            let outcome: CoordinationOutcome
            if let coordinator = coordination as? BaseFlowCoordinator {
                outcome = coordinator.requestCoordination(step, from: sender, continuation: .init(deepLink: rest))
            } else {
                // Another kind of coordination has no deep link to hold: the step is sent on its own.
                outcome = coordination.requestCoordination(step, from: sender)
            }
            if !outcome.isHandled { return DeepLinkResult(applied: index, total: link.steps.count, stoppedBy: outcome) }
        }
        return DeepLinkResult(applied: link.steps.count, total: link.steps.count, stoppedBy: nil)
    }

    /// Runs the rest of a deep link after its queued step replayed with `outcome`.
    func continueDeepLink(_ link: PendingDeepLink, after outcome: CoordinationOutcome) {
        if outcome.isHandled, link.next < link.steps.count { _ = (link.opener ?? rootCoordinator).apply(link) }
    }
}
