import FlowKit

/// Handles `catalog.create` where the manifest routes it here instead of `CreateItem`: a one-screen form
/// pushed inline. `save` {"title": "..."} adds the item, refreshes the lists and pops the form.
final class QuickCreateManager: FlowManager {
    override class var requirements: [DependencyKey] { [DependencyKey(.store)] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let store = try store()
        let form = self.module(
            .quickCreate, title: "Quick Add", content: ["fields": ["title"]],
            actions: [
                ModuleAction("save", summary: #"add the item {"title": "..."}"#) { _, payload in
                    guard let title = payload.itemTitle else { return .failed(.missingTitle) }
                    store.add(title: title)
                    ItemListManager.refreshLists(in: self.coordinator.router, from: store)
                    self.finish()
                    return nil
                }
            ])
        return .present(form, .inline)
    }
}
