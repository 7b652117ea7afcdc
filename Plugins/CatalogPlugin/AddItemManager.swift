import FlowKit

/// Handles `catalog.item.add` {"title": "..."}: adds the item and refreshes the lists, presenting nothing,
/// and answers whoever asked with `requestCoordination(_:from:onResult:)` with the new item,
/// `{"id": n, "title": "..."}`.
///
/// The contract other plugins use to add items without sharing the store's type (the express plugin's
/// one-screen form does, then shows the item by its id).
final class AddItemManager: FlowManager {
    override class var requirements: [DependencyKey] { [DependencyKey(.store)] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let title = request.payload.itemTitle else { throw FlowError.missingTitle }
        let store = try store()
        let item = store.add(title: title)
        ItemListManager.refreshLists(in: coordinator.router, from: store)
        finish(with: .completed(item.json))
        return .finished
    }
}
