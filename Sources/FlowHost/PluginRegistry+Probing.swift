/// Probing before loading: with a ``PluginRegistry/prober``, each plugin is probed in a child process
/// (through the cache) before its first in-process load and before each reload, so that a library that
/// crashes, exits or hangs while loading fails only its own routes instead of taking the host down.
extension PluginRegistry {
    /// Probes the slot's library; without a prober (`--trust`), only refuses it when ``quarantine`` lists it.
    func vet(_ slot: Slot) throws(PluginLoadError) {
        guard prober != nil || quarantine != nil else { return }
        let entry = slot.entry
        let path = try searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: entry.name)
        guard let prober else {
            if let quarantine, let listed = quarantine.entry(for: path, identity: FileIdentity(path: path)) {
                throw quarantine.refusal(listed)
            }
            return
        }
        if let pin = entry.sha256 {
            try PluginCopy(reading: path, allowInsecure: allowsInsecurePlugins).verify(sha256: pin)
        }
        _ = try prober.probe(path, pin: entry.sha256)
    }
}
