import FlowComposition
import FlowKit
import FlowManifest
import PluginLoading

/// Requirements between plugins: a plugin's requirements are loaded before it, and a requirement that is
/// not met refuses the plugin that needs it. A manifest that discovers has them checked by its composition
/// (``PluginComposition``) before anything loads; a manifest that only lists its plugins, as each plugin
/// first loads, with the same one-line refusals.
extension PluginRegistry {
    /// Takes the load order and requirements of `composition`; without one, each plugin's requirements are
    /// checked as it loads.
    func follow(_ composition: PluginComposition?) {
        loadOrder = composition?.loadOrder ?? []
        requirements = composition?.requirements ?? [:]
        requirementsAreComposed = composition != nil
    }

    /// Loads the plugins that the slot's plugin, from `library`, `requires`, unless a composition checked
    /// them already, and checks their versions.
    ///
    /// - Throws: ``PluginLoadError`` of kind ``PluginLoadError/Kind/unmetRequirement`` saying which
    ///   requirement is not met and why (as ``PluginComposition`` says it), or
    ///   ``PluginLoadError/Kind/requirementCycle`` when a required plugin is being loaded for this one.
    func meetRequirements(of slot: Slot, _ requires: [String: String], library: String) throws(PluginLoadError) {
        guard !requirementsAreComposed else { return }
        for requirement in PluginRequirement.all(of: slot.entry.name, library: library, requires: requires) {
            let found: PluginRequirement.Found
            if let start = loading.firstIndex(of: requirement.required) {
                throw PluginLoadError(
                    file: library, kind: .requirementCycle,
                    message: PluginComposition.cycleMessage(Array(loading[start...])))
            } else if slots[requirement.required] == nil {
                found = .missing(why: "which is not there")
            } else {
                do {
                    let required = try load(requirement.required)
                    found = .present(version: required.description.version, library: required.path)
                } catch {
                    found = .refused(error)
                }
            }
            if let refusal = requirement.refusal(found) { throw refusal }
        }
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
