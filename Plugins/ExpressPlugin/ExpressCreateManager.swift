import FlowKit

extension CoordinationRequestName {
    /// Adds an item to the catalog: payload `{"title": "..."}`; answers with the item. Served by the catalog
    /// plugin.
    static let addItem: Self = "catalog.item.add"
    /// Creates an item: the catalog's request, which this plugin offers to handle in one screen.
    static let createItem: Self = "catalog.create"
    /// Shows an item: payload `{"id": n}`. Served by the catalog plugin.
    static let showItem: Self = "catalog.detail"
}

/// Creates an item on one screen, `expressCreate`, presented inline: `save {"title": ...}` asks the catalog
/// to add it, goes back and shows the new item, so that the person lands on what they made; `cancel`
/// just goes back.
final class ExpressCreateManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let screen = self.module(
            "expressCreate", title: "New item (express)", content: ["fields": ["title"]],
            actions: [
                ModuleAction("save", summary: "add the item and show it") { [weak self] module, payload in
                    guard let title = payload["title"]?.string, !title.isEmpty else {
                        return .failed(FlowError("save needs a title: act save {\"title\": \"Tent\"}"))
                    }
                    return self?.save(title, from: module.name)
                },
                ModuleAction("cancel", summary: "go back without adding") { [weak self] _, _ in
                    self?.finish()
                    return nil
                },
            ])
        return .present(screen, .inline)
    }

    /// Asks the catalog to add the item titled `title`; once it is added, goes back and shows it.
    private func save(_ title: String, from module: Coordinated) -> CoordinationOutcome {
        let added = AddedItem()
        let coordinator = self.coordinator
        let outcome = coordinator.requestCoordination(
            CoordinationRequest(.addItem, payload: ["title": .string(title)]), from: module
        ) { added.result = $0 }
        guard outcome.isHandled else { return outcome }
        finish()
        // A catalog that answers without the item leaves the person on the list.
        guard let id = added.result?.value?["id"] else { return outcome }
        return coordinator.requestCoordination(CoordinationRequest(.showItem, payload: ["id": id]), from: module)
    }
}

/// What the catalog answered to `catalog.item.add`, once it has.
@MainActor
private final class AddedItem {
    var result: FlowResult?
}
