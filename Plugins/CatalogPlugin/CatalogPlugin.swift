import FlowKit

/// The plugin's managers and services, each named once: the description, its routes, modules and
/// service starts refer to these, so that a misspelt name is a compile error.
enum Exports {
    static let home = ManagerFactory("Home", HomeManager.self)
    static let itemList = ManagerFactory("ItemList", ItemListManager.self)
    static let itemDetail = ManagerFactory("ItemDetail", ItemDetailManager.self)
    static let createItem = ManagerFactory("CreateItem", CreateItemManager.self)
    static let quickCreate = ManagerFactory("QuickCreate", QuickCreateManager.self)
    static let addItem = ManagerFactory("AddItem", AddItemManager.self)
    static let store = ServiceFactory("Store") { StoreService() }
}

/// What the catalog plugin offers: the signed-in home, the item list and the screens around it.
let description = PluginDescription(
    name: "catalog",
    version: "1.0.0",
    managers: [
        Exports.home, Exports.itemList, Exports.itemDetail, Exports.createItem, Exports.quickCreate, Exports.addItem,
    ],
    services: [Exports.store],
    // What a manifest that discovers this plugin routes to it, and starts. QuickCreate is not routed: a
    // manifest picks it by routing catalog.create itself (manifests/variant.json).
    routes: [
        DeclaredRoute(.showHome, manager: Exports.home),
        DeclaredRoute(.showList, manager: Exports.itemList),
        DeclaredRoute(.showDetail, manager: Exports.itemDetail),
        DeclaredRoute(.createItem, manager: Exports.createItem),
        DeclaredRoute(.addItem, manager: Exports.addItem),
    ],
    startServices: [ServiceStart(Exports.store)],
    // The items are the signed-in person's: the session starts before the store, and signing in shows home.
    requires: ["auth": "^1.0"],
    // The items are shown to someone signed in: the catalog's requests wait for sign-in (auth's Session
    // provides the context's user), and then go on. A manifest that discovers the plugin installs the guard
    // and adds the links; one that lists it writes its own (manifests/demo.json).
    guards: [DeclaredGuard("signedIn", requests: ["catalog.*"], unless: .context("user"), redirect: .signIn)],
    deepLinks: [
        DeclaredDeepLink("demo://items/new", opens: [CoordinationRequest(.createItem)]),
        DeclaredDeepLink("demo://items/{id:int}", opens: [CoordinationRequest(.showDetail, payload: ["id": "{id}"])]),
    ],
    // What its screens can send, for flow graphs. Home asks for its tabs itself, while it is being shown,
    // not from an action; the item form (createItemForm) sends nothing and is presented by the createItem
    // sub-flow's own manager, so it has nothing to declare.
    modules: [
        DeclaredModule(.home, presentedBy: Exports.home),
        DeclaredModule(
            .itemList, presentedBy: Exports.itemList,
            sends: [.action("open", .showDetail), .action("create", .createItem)]),
        DeclaredModule(.itemDetail, presentedBy: Exports.itemDetail, sends: [.action("settings", .showSettings)]),
        DeclaredModule(.quickCreate, presentedBy: Exports.quickCreate),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
