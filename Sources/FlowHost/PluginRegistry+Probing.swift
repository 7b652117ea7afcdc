/// Probing before loading: with a ``PluginRegistry/prober``, each plugin is probed in a child process
/// (through the cache) before its first in-process load and before each reload, so that a library that
/// crashes, exits or hangs while loading fails only its own routes instead of taking the host down.
extension PluginRegistry {
    /// Probes the slot's library; does nothing without a prober (`--trust`).
    func vet(_ slot: Slot) throws(PluginLoadError) {
        guard let prober else { return }
        let entry = slot.entry
        let path = try searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: entry.name)
        if let pin = entry.sha256 {
            try PluginCopy(reading: path, allowInsecure: allowsInsecurePlugins).verify(sha256: pin)
        }
        _ = try prober.probe(path, pin: entry.sha256)
    }
}
