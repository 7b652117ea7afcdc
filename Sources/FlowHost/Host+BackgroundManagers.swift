import FlowKit
import PluginLoading

/// What a reload does to the managers of the plugin's previous generations.
///
/// Screens already shown keep the managers (and the code) that built them, and so do managers that work
/// without a screen and wait for something, such as a child flow's result. A manager working in the
/// background, answering `.working` with tasks of its own running, is replaced: its tasks are cancelled
/// and it ends as ``ManagerEndReason/replaced``, so that no old code keeps running unseen in a host that
/// runs for a long time. The new generation serves the next request, the requests of the child flows
/// already open among them (``retargetChildFlows(of:retiring:)``).
extension Host {
    /// Ends the background managers whose code is that of a generation plugin `name` no longer serves from.
    ///
    /// - Parameter retired: The previous generation: the managers it exports are retired with it.
    /// - Returns: How many managers ended.
    @discardableResult
    func replaceBackgroundManagers(of name: String, retiring retired: LoadedPlugin?) -> Int {
        for type in Self.exportedManagerTypes(of: retired).keys {
            retiredManagerTypes[name, default: []].insert(type)
        }
        guard let types = retiredManagerTypes[name], !types.isEmpty else { return 0 }
        return coordinator.replaceBackgroundManagers { types.contains(ObjectIdentifier(type(of: $0))) }
    }

    /// Points the routes of the open child flows that go to a manager of the retired generation of plugin
    /// `name` at the same manager of its current generation, so that their next requests run the new code.
    ///
    /// A child's own mapping is the plugin's code (its manager built it), and names the factories it made;
    /// a factory is known to be the retired generation's by the type of the managers it makes, and its
    /// replacement is the current generation's export of the same name. A manager the plugin does not
    /// export (in ``FlowKit/PluginDescription/managers``) cannot be found again, and keeps its old code.
    ///
    /// - Returns: How many routes now go to the current generation.
    @discardableResult
    func retargetChildFlows(of name: String, retiring retired: LoadedPlugin?) -> Int {
        let exported = Self.exportedManagerTypes(of: retired)
        guard !exported.isEmpty else { return 0 }
        var retargeted = 0
        func visit(_ coordinator: BaseFlowCoordinator) {
            for child in coordinator.children {
                var mapping = child.mapping
                var changed = false
                for (route, factory) in child.mapping {
                    guard let type = try? factory.resolve().managerTypeID, let export = exported[type],
                        let current = try? registry.manager(export, in: name)
                    else { continue }
                    // Reported as the child named it, made by the current generation.
                    let reported = factory.name
                    mapping[route] = ManagerFactory(name: reported) { try current.resolve().named(reported) }
                    changed = true
                    retargeted += 1
                }
                if changed { child.mapping = mapping }
                visit(child)
            }
        }
        visit(coordinator)
        return retargeted
    }

    /// The types of the managers `plugin` exports, with the name each is exported as. Each generation's
    /// types are its own (a new copy of the library defines them again), so a type tells whose code a
    /// manager runs.
    private static func exportedManagerTypes(of plugin: LoadedPlugin?) -> [ObjectIdentifier: String] {
        var exported: [ObjectIdentifier: String] = [:]
        for factory in plugin?.description.managers ?? [] {
            if let type = try? factory.resolve().managerTypeID { exported[type] = factory.name }
        }
        return exported
    }
}
