import FlowKit

extension BaseFlowCoordinator {
    /// Runs `body` once, when `child` finishes; any other child that finishes is passed on to the handler
    /// that was installed before.
    ///
    /// ``BaseFlowCoordinator/onRegainFocus`` is one slot shared by every manager working for this
    /// coordinator, so handlers are chained rather than replaced.
    func whenFinished(_ child: BaseFlowCoordinator, _ body: @escaping @MainActor () -> Void) {
        let previous = onRegainFocus
        var isPending = true
        onRegainFocus = { [weak child] finished in
            if isPending, finished === child {
                isPending = false
                body()
            } else {
                previous?(finished)
            }
        }
    }
}
