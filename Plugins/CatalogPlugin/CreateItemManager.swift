import FlowKit

/// Handles `catalog.create`: opens the `createItem` sub-flow modally, with the item form as its first
/// screen. When the sub-flow finishes (saved, cancelled or dismissed), the manager refreshes the item
/// lists on screen and finishes.
final class CreateItemManager: FlowManager {
    override class var requirements: [DependencyKey] { [.store] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(
            name: "createItem",
            mapping: [
                RequestRoute(.createItemForm): ManagerFactory("CreateForm", CreateFormManager.self)
            ])
        coordinator.openChild(flow, style: .modal, onFinish: { [weak self] in self?.flowFinished() })
        let outcome = flow.requestCoordination(.createItemForm, payload: request.payload, from: .createItem)
        guard outcome.isHandled else {
            flow.finish()
            throw FlowError("could not show the item form: \(outcome)")
        }
        return .working
    }

    private func flowFinished() {
        if let store = try? store() { ItemListManager.refreshLists(in: coordinator.router, from: store) }
        finish()
    }
}
