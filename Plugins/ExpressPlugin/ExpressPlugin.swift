import FlowKit

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
    managers: [
        ManagerFactory("ExpressCreate", ExpressCreateManager.self)
    ],
    routes: [DeclaredRoute(.createItem, manager: "ExpressCreate")],
    requires: ["catalog": "^1.0"],
    // Saving asks the catalog to add the item, then to show it.
    modules: [
        DeclaredModule(
            "expressCreate", presentedBy: "ExpressCreate",
            sends: [.action("save", .addItem), .action("save", .showItem)])
    ])

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(description)
}
