import FlowKit

extension FlowManager {
    /// Opens a tab titled `title`, run by a child coordinator of its own, and presents the module
    /// `makeModule` builds as its first screen.
    ///
    /// A coordinator pushes inline screens onto its own stack. Presenting a module `.tab(title)` straight
    /// from this manager's coordinator would leave the screens it leads to (an item's detail) on that
    /// coordinator's stack, hidden behind the tab bar; the child coordinator makes them land in the tab.
    ///
    /// - Parameter makeModule: Builds the module, given the coordinator its actions must ask.
    func presentInNewTab(
        _ title: String, coordinatorName: String, _ makeModule: (any FlowCoordinator) -> FlowModule
    ) throws(FlowError) -> ManagerStep {
        guard let host = coordinator as? BaseFlowCoordinator else {
            throw FlowError("cannot open tab '\(title)': '\(coordinator.name)' is not a BaseFlowCoordinator")
        }
        let tab = BaseFlowCoordinator(name: coordinatorName)
        host.openChild(tab, style: .tab(title))
        tab.present(makeModule(tab), style: .inline, by: self)
        return .finished
    }
}
