import FlowKit

/// The plugin's managers and services, each named once: the description, its routes, modules and
/// service starts refer to these, so that a misspelt name is a compile error.
enum Exports {
    static let expressCreate = ManagerFactory("ExpressCreate", ExpressCreateManager.self)
}

/// The express plugin: a second implementation of item creation, one screen instead of a child flow,
/// for the `create-flow` experiment in `manifests/experiment.json`.
///
/// It shares no code or types with the catalog plugin: it asks the catalog to add the item with the
/// `catalog.item.add` request, the only contract between the two.
///
/// Dropped in beside the catalog, it proposes to take over `catalog.create`, which the catalog declares too:
/// a manifest that discovers both picks one with `prefer` (manifests/dropin.json keeps the catalog's).
let description = PluginDescription(
    name: "express", version: "1.0.0",
    managers: [Exports.expressCreate],
    routes: [DeclaredRoute(.createItem, manager: Exports.expressCreate)],
    requires: ["catalog": "^1.0"],
    // Saving asks the catalog to add the item, then to show it.
    modules: [
        DeclaredModule(
            "expressCreate", presentedBy: Exports.expressCreate,
            sends: [.action("save", .addItem), .action("save", .showItem)])
    ])

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(description)
}
