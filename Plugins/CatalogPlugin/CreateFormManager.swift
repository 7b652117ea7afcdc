import FlowKit

/// Handles `catalog.create.form` inside the `createItem` sub-flow: the form. `save` {"title": "..."} adds
/// the item and finishes the sub-flow; `cancel` finishes it without adding anything.
final class CreateFormManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let store = try store()
        let form = self.module(
            .createItemForm, title: "New Item", content: ["fields": ["title"]],
            actions: [
                ModuleAction("save", summary: #"add the item {"title": "..."}"#) { module, payload in
                    guard let title = payload.itemTitle else { return .failed(.missingTitle) }
                    store.add(title: title)
                    // The form's coordinator is the sub-flow: finishing it closes the modal.
                    (module.coordination as? BaseFlowCoordinator)?.finish()
                    return nil
                },
                ModuleAction("cancel", summary: "close without adding") { module, _ in
                    (module.coordination as? BaseFlowCoordinator)?.finish()
                    return nil
                },
            ])
        return .present(form, .inline)
    }
}
