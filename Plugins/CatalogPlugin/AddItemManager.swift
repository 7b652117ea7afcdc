import FlowKit

/// Handles `catalog.item.add` {"title": "..."}: adds the item and refreshes the lists, presenting nothing.
///
/// The contract other plugins use to add items without sharing the store's type (the express plugin's
/// one-screen form does).
final class AddItemManager: FlowManager {
    override class var requirements: [DependencyKey] { [.store] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let title = request.payload.itemTitle else { throw FlowError.missingTitle }
        let store = try store()
        store.add(title: title)
        ItemListManager.refreshLists(in: coordinator.router, from: store)
        return .finished
    }
}
