/// What ``FlowCoordinator`` offers plugins, answered from the tree the coordinator keeps.
extension BaseFlowCoordinator {
    /// The coordinator that opened this one as a child flow; `nil` for the root.
    public var parentCoordinator: (any FlowCoordinator)? { parent }

    /// The child flows open in this coordinator, oldest first.
    public var childCoordinators: [any FlowCoordinator] { children }
}
