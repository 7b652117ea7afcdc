import FlowKit

/// Handles `catalog.create`: opens the `createItem` sub-flow modally, with the item form as its first
/// screen. When the sub-flow completes with the new item, the manager shows it in the item lists on screen;
/// cancelled or dismissed, nothing changes. Either way the manager finishes with the sub-flow's result, which
/// whoever asked with `requestCoordination(_:from:onResult:)` receives.
final class CreateItemManager: FlowManager {
    override class var requirements: [DependencyKey] { [DependencyKey(.store)] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(
            name: "createItem",
            mapping: [
                RequestRoute(.createItemForm): ManagerFactory("CreateForm", CreateFormManager.self)
            ])
        coordinator.openChild(flow, style: .modal, onResult: { [weak self] in self?.flowFinished($0) })
        let outcome = flow.requestCoordination(.createItemForm, payload: request.payload, from: .createItem)
        guard outcome.isHandled else {
            flow.finish(with: .failed(FlowError("could not show the item form: \(outcome)")))
            throw FlowError("could not show the item form: \(outcome)")
        }
        return .working
    }

    private func flowFinished(_ result: FlowResult) {
        if let item = result.value { ItemListManager.show(newItem: item, in: coordinator.router) }
        finish(with: result)
    }
}
