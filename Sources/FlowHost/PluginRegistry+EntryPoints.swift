import HostSupport
import PluginLoading

/// Entry points in quarantine: a plugin whose manager, action or service crashed a supervised host keeps
/// its other entry points; the quarantined ones fail cleanly, with one line naming the plugin, the entry
/// point and why (see ``PluginQuarantine``).
extension PluginRegistry {
    /// The quarantine that applies: the registry's own (a supervised host's), else its prober's.
    var activeQuarantine: PluginQuarantine? { quarantine ?? prober?.quarantine }

    /// Reads which entry points of `slot`'s newly loaded library are quarantined, as its file is now.
    func noteQuarantinedEntryPoints(of slot: Slot) {
        guard case .loaded(let plugin) = slot.status, let quarantine = activeQuarantine else {
            slot.quarantinedEntryPoints = [:]
            return
        }
        slot.quarantinedEntryPoints = quarantine.entryPoints(of: plugin.path, identity: FileIdentity(path: plugin.path))
    }

    /// Throws the refusal of `entryPoint` of plugin `plugin` when it is quarantined.
    ///
    /// - Throws: ``PluginLoadError`` of kind ``PluginLoadError/Kind/quarantined``.
    package func refuseQuarantined(_ entryPoint: PluginEntryPoint, of plugin: String) throws(PluginLoadError) {
        guard let entry = slots[plugin]?.quarantinedEntryPoints[entryPoint] else { return }
        throw PluginQuarantine.refusal(entry, plugin: plugin)
    }
}
