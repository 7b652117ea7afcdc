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
    ],
    // What a manifest that discovers this plugin routes to it, and starts. QuickCreate is not routed: a
    // manifest picks it by routing catalog.create itself (manifests/variant.json).
    routes: [
        DeclaredRoute(.showHome, manager: "Home"),
        DeclaredRoute(.showList, manager: "ItemList"),
        DeclaredRoute(.showDetail, manager: "ItemDetail"),
        DeclaredRoute(.createItem, manager: "CreateItem"),
        DeclaredRoute(.addItem, manager: "AddItem"),
    ],
    startServices: [ServiceStart("Store")],
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
        DeclaredModule(.home, presentedBy: "Home"),
        DeclaredModule(
            .itemList, presentedBy: "ItemList", sends: [.action("open", .showDetail), .action("create", .createItem)]),
        DeclaredModule(.itemDetail, presentedBy: "ItemDetail", sends: [.action("settings", .showSettings)]),
        DeclaredModule(.quickCreate, presentedBy: "QuickCreate"),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
