import FlowKit

/// Handles `catalog.detail` {"id": n}: one item, pushed inline. An unknown id fails the request.
/// `settings` asks for `settings.show`.
final class ItemDetailManager: FlowManager {
    override class var requirements: [DependencyKey] { [DependencyKey(.store)] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let item = try store().item(id: request.decode(.showDetail).id)
        let detail = self.module(
            .itemDetail, title: item.title, content: item.json,
            actions: [.request("settings", .showSettings, summary: "open the settings")])
        return .present(detail, .inline)
    }
}
