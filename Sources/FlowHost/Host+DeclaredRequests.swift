import FlowManifest
import PluginLoading

extension Host {
    /// The requests the loaded plugins of the manifest in force declare, routed or sent by their modules
    /// (``DeclaredRequests``): what the shell's hints tell a typo in the manifest's routes by. A plugin not
    /// loaded yet is not read, so as not to load it for a hint.
    package var declaredRequests: DeclaredRequests {
        manifest.plugins.keys.reduce(DeclaredRequests()) { declared, name in
            guard case .loaded(let plugin)? = registry.status(of: name) else { return declared }
            return declared.union(plugin.declaredRequests)
        }
    }
}
