/// Requirements between plugins (see ``PluginComposition``): a plugin's requirements are loaded before it,
/// and a requirement that fails to load fails the plugin that needs it.
extension PluginRegistry {
    /// Takes the load order and requirements of `composition`; none without one.
    func follow(_ composition: PluginComposition?) {
        loadOrder = composition?.loadOrder ?? []
        requirements = composition?.requirements ?? [:]
    }

    /// Loads the plugins the slot's plugin requires.
    ///
    /// - Throws: ``PluginLoadError`` of kind ``PluginLoadError/Kind/unmetRequirement`` naming both plugins.
    func loadRequirements(of slot: Slot) throws(PluginLoadError) {
        guard let required = requirements[slot.entry.name] else { return }
        for name in required {
            do {
                try load(name)
            } catch {
                throw PluginLoadError(
                    file: library(of: slot.entry.name) ?? slot.entry.library, kind: .unmetRequirement,
                    message:
                        "plugin '\(slot.entry.name)' requires plugin '\(name)', which failed to load: \(error.description)"
                )
            }
        }
    }
}
