import FlowKit

/// Handles `catalog.create.form` inside the `createItem` sub-flow: the form. `save` {"title": "..."} adds
/// the item and completes the sub-flow with it; `cancel` cancels the sub-flow without adding anything.
final class CreateFormManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let store = try store()
        let form = self.module(
            .createItemForm, title: "New Item", content: ["fields": ["title"]],
            actions: [
                ModuleAction("save", summary: #"add the item {"title": "..."}"#) { module, payload in
                    guard let title = payload.itemTitle else { return .failed(.missingTitle) }
                    let item = store.add(title: title)
                    // The form's coordinator is the sub-flow: finishing it closes the modal.
                    (module.coordination as? any FlowCoordinator)?.finish(with: .completed(item.json))
                    return nil
                },
                ModuleAction("cancel", summary: "close without adding") { module, _ in
                    (module.coordination as? any FlowCoordinator)?.finish(with: .cancelled)
                    return nil
                },
            ])
        return .present(form, .inline)
    }
}
