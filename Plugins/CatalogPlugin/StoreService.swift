import FlowKit

/// The catalog's items, in memory.
///
/// The store is not ready when it starts: it registers itself as `catalog.storeService`, and only
/// ``load()`` (asked for by the home screen, once someone signs in) fills it and sets `catalog.store`.
/// Requests for screens that need the items wait for that dependency, so a deep link into the catalog
/// before signing in is replayed once the store is loaded.
final class StoreService: CoordinatorServiceProtocol {
    /// One item.
    struct Item: Sendable, Hashable {
        var id: Int
        var title: String

        /// The item as module content: `{"id": n, "title": "..."}`.
        var json: JSONValue { ["id": .number(Double(id)), "title": .string(title)] }
    }

    private static let seed = [
        Item(id: 1, title: "Compass"), Item(id: 2, title: "Lantern"), Item(id: 3, title: "Rope"),
    ]

    /// The items, oldest first.
    private(set) var items: [Item] = []
    /// Whether ``load()`` was called.
    private(set) var isLoaded = false
    private weak var coordinator: (any FlowCoordinator)?

    func start(with coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
        coordinator.setDependency(.storeService, self)
        // A store handed over loaded by the previous generation takes its place as the dependency.
        if isLoaded { coordinator.setDependency(.store, self) }
    }

    func stop() {
        coordinator = nil
    }

    /// Loads the items and publishes the store as `catalog.store`. Loading a loaded store does nothing.
    func load() {
        guard !isLoaded else { return }
        items = Self.seed
        isLoaded = true
        coordinator?.setDependency(.store, self)
    }

    /// The item with `id`.
    ///
    /// - Throws: ``FlowError`` when there is none.
    func item(id: Int) throws(FlowError) -> Item {
        guard let item = items.first(where: { $0.id == id }) else { throw FlowError("no item with id \(id)") }
        return item
    }

    /// Adds an item titled `title` and returns it.
    @discardableResult
    func add(title: String) -> Item {
        let item = Item(id: (items.map(\.id).max() ?? 0) + 1, title: title)
        items.append(item)
        return item
    }
}

/// The items, and whether they were loaded, survive a reload of the catalog plugin.
extension StoreService: StateHandoff {
    func exportState() -> JSONValue {
        ["loaded": .bool(isLoaded), "items": .array(items.map(\.json))]
    }

    func importState(_ state: JSONValue) {
        items = (state["items"]?.array ?? []).compactMap { item in
            guard let id = item["id"]?.int, let title = item["title"]?.string else { return nil }
            return Item(id: id, title: title)
        }
        isLoaded = state["loaded"]?.bool ?? false
    }
}
