import FlowKit
import FlowManifest
import PluginLoading

/// A link to one plugin's manager: resolves through the registry on first use, and again only when the
/// plugin's generation changes, which is how a reload switches every route at once.
@MainActor
final class ManagerBinding {
    let plugin: String
    let manager: String
    private let registry: PluginRegistry
    /// The plugin's slot as last looked up, valid while the registry's slots are the same.
    ///
    /// This and ``cached`` are not checked for exclusivity at run time (read on every request): private,
    /// only read or assigned whole in ``resolve()`` on the main actor, never passed `inout` nor accessed
    /// across a call, so no two accesses to either can overlap.
    @exclusivity(unchecked) private var slot: (version: Int, slot: PluginRegistry.Slot)?
    /// What the manager resolved to, valid while the plugin's generation is the same.
    @exclusivity(unchecked) private var cached: (generation: Int, resolved: ManagerFactory.Resolved)?

    init(plugin: String, manager: String, registry: PluginRegistry) {
        self.plugin = plugin
        self.manager = manager
        self.registry = registry
    }

    /// `plugin.Manager`, as outcomes report it.
    var reportedName: String { "\(plugin).\(manager)" }

    func resolve() throws -> ManagerFactory.Resolved {
        let slot: PluginRegistry.Slot
        if let kept = self.slot, kept.version == registry.slotsVersion {
            slot = kept.slot
        } else if let found = registry.slot(plugin) {
            slot = found
            self.slot = (registry.slotsVersion, found)
        } else {
            throw PluginLoadError(file: registry.manifest.path, kind: .notFound, message: "no plugin named '\(plugin)'")
        }
        if let cached, cached.generation == slot.generation { return cached.resolved }
        let resolved = try registry.manager(manager, in: plugin).resolve()
        cached = (slot.generation, resolved)
        return resolved
    }
}
