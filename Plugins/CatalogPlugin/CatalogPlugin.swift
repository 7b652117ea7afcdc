import FlowKit

/// What the catalog plugin offers: the signed-in home, the item list and the screens around it.
let description = PluginDescription(
    name: "catalog",
    version: "1.0.0",
    managers: [
        ManagerFactory("Home", HomeManager.self),
        ManagerFactory("ItemList", ItemListManager.self),
        ManagerFactory("ItemDetail", ItemDetailManager.self),
        ManagerFactory("CreateItem", CreateItemManager.self),
        ManagerFactory("QuickCreate", QuickCreateManager.self),
        ManagerFactory("AddItem", AddItemManager.self),
    ],
    services: [
        ServiceFactory("Store") { StoreService() }
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
