import FlowKit

/// Handles `home.show`: the signed-in home. Makes `home` the root screen (clearing whatever came before
/// signing in), asks, as `home`, for its two tabs (`catalog.list` and `settings.show`, both
/// {"style": "tab"}), then loads the store: requests that waited for `catalog.store` (a deep link opened
/// before signing in) are replayed into the tabs, and the item list shows the loaded items.
final class HomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let store = try storeService()
        let home = self.module(
            .home, title: "Home",
            content: ["user": context.value(atPath: "user.name") ?? .null, "tabs": ["Items", "Settings"]])
        coordinator.present(home, style: .root, by: self)
        for tab in [CoordinationRequestName.showList, .showSettings] {
            let outcome = coordinator.requestCoordination(tab, payload: ["style": "tab"], from: .home)
            if case .failed(let error) = outcome { throw error }
        }
        store.load()
        ItemListManager.refreshLists(in: coordinator.router, from: store)
        return .finished
    }
}
