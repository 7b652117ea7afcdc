import FlowKit

extension CoordinationRequestName {
    /// Adds an item to the catalog: payload `{"title": "..."}`. Served by the catalog plugin.
    static let addItem: Self = "catalog.item.add"
    /// Creates an item: the catalog's request, which this plugin offers to handle in one screen.
    static let createItem: Self = "catalog.create"
}

/// Creates an item on one screen, `expressCreate`, presented inline: `save {"title": ...}` asks the catalog
/// to add it and goes back; `cancel` just goes back.
final class ExpressCreateManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let screen = self.module(
            "expressCreate", title: "New item (express)", content: ["fields": ["title"]],
            actions: [
                ModuleAction("save", summary: "add the item and go back") { [weak self] module, payload in
                    guard let title = payload["title"]?.string, !title.isEmpty else {
                        return .failed(FlowError("save needs a title: act save {\"title\": \"Tent\"}"))
                    }
                    let outcome = module.requestCoordination(.addItem, payload: ["title": .string(title)])
                    if outcome.isHandled { self?.finish() }
                    return outcome
                },
                ModuleAction("cancel", summary: "go back without adding") { [weak self] _, _ in
                    self?.finish()
                    return nil
                },
            ])
        return .present(screen, .inline)
    }
}
