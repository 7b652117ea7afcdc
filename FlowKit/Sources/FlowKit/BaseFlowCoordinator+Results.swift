/// Results of requests: the manager that handles a request tells the one who asked how it ended, as a child
/// flow tells its opener.
extension BaseFlowCoordinator {
    /// Routes `request` from `module` like ``requestCoordination(_:from:)``, and calls `onResult` once, when
    /// the manager that handled it ends: with the result it gave to ``finish(_:with:)``
    /// (``FlowManager/finish(with:)``), ``FlowResult/completed(_:)`` with `null` when it finished without
    /// one, ``FlowResult/cancelled`` when it was dismissed, its coordinator finished or a reload replaced it,
    /// and ``FlowResult/failed(_:)-enum.case`` when its `start` threw or, while it was working, a task it
    /// started with ``FlowManager/task(_:)`` threw.
    ///
    /// `onResult` is never called when the request was not handled at once (no route, queued, redirected or
    /// rewritten by a guard): the returned outcome says what became of it.
    @discardableResult
    public func requestCoordination(
        _ request: CoordinationRequest, from module: Coordinated, onResult: @escaping @MainActor (FlowResult) -> Void
    ) -> CoordinationOutcome {
        requestCoordination(request, from: module, continuation: RequestContinuation(onResult: onResult))
    }

    /// Finishes `manager`, as ``finish(_:)`` does, handing `result` to whoever asked for its request with
    /// ``requestCoordination(_:from:onResult:)``.
    public func finish(_ manager: any RequestCoordinatorManager, with result: FlowResult) {
        treeRouter.ledger.give(result, to: manager)
        finish(manager)
    }
}
