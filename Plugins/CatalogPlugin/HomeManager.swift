import FlowKit

/// Handles `home.show`: the signed-in home. Loads the store, makes `home` the root screen (clearing
/// whatever came before signing in) and asks, as `home`, for its two tabs: `catalog.list` and
/// `settings.show`, both {"style": "tab"}.
final class HomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let store = coordinator.dependencies[.storeService, as: StoreService.self] else {
            throw FlowError(
                "no catalog store: dependency 'catalog.storeService' is not set; start the service with "
                    + #"{"plugin": "catalog", "service": "Store"}"#)
        }
        let home = self.module(
            .home, title: "Home",
            content: ["user": context.value(atPath: "user.name") ?? .null, "tabs": ["Items", "Settings"]])
        // The root first: it clears the presentation, which would take away anything the load replays.
        coordinator.present(home, style: .root, by: self)
        store.load()
        for tab in [CoordinationRequestName.showList, .showSettings] {
            let outcome = coordinator.requestCoordination(tab, payload: ["style": "tab"], from: .home)
            if case .failed(let error) = outcome { throw error }
        }
        return .finished
    }
}
