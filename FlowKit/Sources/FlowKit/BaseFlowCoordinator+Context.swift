/// Announcing context changes to the screens that show the context.
extension BaseFlowCoordinator {
    /// Calls ``FlowModule/onContextChange`` of every presented module that has one, in the whole tree, with
    /// the context as the module's own coordinator sees it.
    ///
    /// Context providers call this (through the coordinator their service was started with) after a change,
    /// so screens refresh themselves instead of each manager refreshing them by hand.
    public func contextDidChange() {
        let root = rootCoordinator
        for module in root.router.modules {
            guard let observe = module.onContextChange else { continue }
            let coordinator = module.coordination as? any FlowCoordinator
            observe(module, coordinator?.context ?? root.context)
        }
    }
}
