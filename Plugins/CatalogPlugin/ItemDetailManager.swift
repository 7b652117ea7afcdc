import FlowKit

/// Handles `catalog.detail` {"id": n}: one item, pushed inline. An unknown id fails the request.
/// `settings` asks for `settings.show`.
final class ItemDetailManager: FlowManager {
    override class var requirements: [DependencyKey] { [.store] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let id = request.payload["id"]?.int else {
            throw FlowError(#"catalog.detail needs an item id: pass {"id": n}, not \#(request.payload)"#)
        }
        let item = try store().item(id: id)
        let detail = self.module(
            .itemDetail, title: item.title, content: item.json,
            actions: [.request("settings", .showSettings, summary: "open the settings")])
        return .present(detail, .inline)
    }
}
