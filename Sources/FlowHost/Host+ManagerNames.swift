import FlowKit
import PluginLoading

/// Managers as a user reads them: `plugin.Manager`. FlowKit names a manager routed by the manifest so
/// (the host makes it under that name), but a manager of a plugin's child flow by the name the child's own
/// mapping gives it (`CreateForm`), which has no plugin. The names are resolved where they are printed
/// (``statsLines``, ``statsJSON``, the shell's lines), so that the request path pays nothing for them.
extension Host {
    /// Notes that manager `name`, as FlowKit reports it, handled a request for plugin `plugin` (the plugin
    /// of the request it was made within, or of the module that sent it): what the shell found for a
    /// `handled by` line. Nothing for a name that already has its plugin.
    package func noteChildManager(_ name: String, of plugin: String) {
        guard self.plugin(ofManager: name) == nil, childManagerPlugins[name]?.contains(plugin) != true else { return }
        childManagerPlugins[name, default: []].insert(plugin)
    }

    /// Manager `name`, as FlowKit reports it, as a user reads it: `plugin.Manager`.
    ///
    /// A name with its plugin, or an experiment's variant, is as it is. A child flow's manager gets the one
    /// plugin it was seen working for (``noteChildManager(_:of:)``), else the one plugin whose description
    /// declares a route of a child flow to a manager of that name (`DeclaredRoute(_:manager:inChildFlow:)`);
    /// found under two plugins, or none, it keeps its name.
    package func userFacingManagerName(_ name: String) -> String {
        guard plugin(ofManager: name) == nil, !name.contains(" ") else { return name }
        var plugins = childManagerPlugins[name] ?? []
        if plugins.isEmpty {
            for plugin in registry.pluginNames {
                guard case .loaded(let loaded)? = registry.status(of: plugin) else { continue }
                if loaded.description.routes.contains(where: { $0.childFlow != nil && $0.manager == name }) {
                    plugins.insert(plugin)
                }
            }
        }
        guard plugins.count == 1, let plugin = plugins.first else { return name }
        return "\(plugin).\(name)"
    }

    /// Handled requests by manager (``HostStats/handled``), each named as a user reads it
    /// (``userFacingManagerName(_:)``): a child flow's manager counted under the name FlowKit gives it and
    /// the same manager routed by the manifest are one.
    var handledByManager: [String: Int] {
        var named: [String: Int] = [:]
        for (manager, count) in stats.handled { named[userFacingManagerName(manager), default: 0] += count }
        return named
    }
}
