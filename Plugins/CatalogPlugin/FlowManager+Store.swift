import FlowKit

extension FlowManager {
    /// The store service, loaded or not: the `catalog.storeService` dependency it sets when it starts.
    func storeService() throws(FlowError) -> StoreService {
        try coordinator.dependencies.require(
            .storeService,
            hint: #"start the service with {"plugin": "catalog", "service": "Store"}"#)
    }

    /// The loaded store, the `catalog.store` dependency.
    ///
    /// - Throws: ``FlowError`` when it is not set; managers that call this require it, so it always is.
    func store() throws(FlowError) -> StoreService {
        try coordinator.dependencies.require(
            .store, hint: "the catalog store loads after sign-in")
    }
}

extension JSONValue {
    /// The non-empty `title` member of an action's payload, if there is one.
    var itemTitle: String? {
        guard let title = self["title"]?.string, !title.isEmpty else { return nil }
        return title
    }
}

extension FlowError {
    /// A `save` without a title.
    static let missingTitle = FlowError(#"an item needs a title: pass {"title": "..."}"#)
}
