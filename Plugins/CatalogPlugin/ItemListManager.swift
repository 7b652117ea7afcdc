import FlowKit

/// Handles `catalog.list`: the items, as the "Items" tab when the payload's `style` is "tab", else pushed
/// inline. `open` {"id": n} asks for `catalog.detail`; `create` asks for `catalog.create`.
///
/// Shows the store's items as they are, none before the store is loaded: Home opens the tabs first and
/// then loads, so that requests waiting for `catalog.store` land in the tabs, and refreshes the list.
final class ItemListManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let store = try storeService()
        func makeList(_ coordination: any FlowCoordinator) -> FlowModule {
            FlowModule(
                .itemList, title: "Items", content: Self.content(of: store),
                actions: [
                    .request("open", .showDetail, summary: #"show the item {"id": n}"#),
                    .request("create", .createItem, summary: "add an item"),
                ],
                coordination: coordination)
        }
        if request.payload["style"]?.string == "tab" {
            return presentInNewTab("Items", coordinatorName: "items", makeList)
        }
        return .present(makeList(coordinator), .inline)
    }

    /// The list's content: `{"items": [{"id": n, "title": "..."}, ...]}`.
    static func content(of store: StoreService) -> JSONValue {
        ["items": .array(store.items.map(\.json))]
    }

    /// Adds `item` (`{"id": n, "title": "..."}`) to every presented item list that lacks it.
    static func show(newItem item: JSONValue, in router: Router) {
        for module in router.modules where module.name == .itemList {
            let items = module.content["items"]?.array ?? []
            guard !items.contains(where: { $0["id"] == item["id"] }) else { continue }
            module.content["items"] = .array(items + [item])
        }
    }

    /// Shows the store's current items in every presented item list, after an item was added.
    static func refreshLists(in router: Router, from store: StoreService) {
        for module in router.modules where module.name == .itemList {
            module.content = content(of: store)
        }
    }
}
