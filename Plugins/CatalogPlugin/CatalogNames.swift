import FlowKit

/// The requests this plugin handles or sends. Other plugins know them only by these spellings.
extension CoordinationRequestName {
    /// Show the settings, as a tab of home and from an item; handled by the settings plugin.
    static let showSettings: Self = "settings.show"
    static let showHome: Self = "home.show"
    static let showList: Self = "catalog.list"
    static let showDetail: Self = "catalog.detail"
    static let createItem: Self = "catalog.create"
    /// Add an item, presenting nothing: what other plugins (express) ask for.
    static let addItem: Self = "catalog.item.add"
    /// Show the item form; routed only inside the `createItem` sub-flow.
    static let createItemForm: Self = "catalog.create.form"
    /// Sign in; handled by the auth plugin, which this one requires.
    static let signIn: Self = "auth.signIn"
}

/// The payload of `catalog.detail`: which item to show.
struct ItemReference: Codable, Sendable, Hashable {
    var id: Int
}

extension TypedRequest where Payload == ItemReference {
    /// `catalog.detail` {"id": n}, typed: senders pass an ``ItemReference``, the manager decodes one.
    static let showDetail = TypedRequest(.showDetail)
}

/// The modules this plugin presents, and the names it sends requests as.
extension Coordinated {
    static let home: Self = "home"
    static let itemList: Self = "itemList"
    static let itemDetail: Self = "itemDetail"
    static let createItemForm: Self = "createItemForm"
    static let quickCreate: Self = "quickCreate"
    /// The `createItem` sub-flow as a whole.
    static let createItem: Self = "createItem"
}

/// The dependencies through which this plugin's managers find the store.
extension TypedDependencyKey where Value == StoreService {
    /// The store service, set as soon as it starts, loaded or not.
    static let storeService = TypedDependencyKey("catalog.storeService")
    /// The loaded store: managers that show items require it, so their requests wait until it is set.
    static let store = TypedDependencyKey("catalog.store")
}
