import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// Probing before loading: with a ``PluginRegistry/prober``, each plugin is probed in a child process
/// (through the cache) before its first in-process load and before each reload, so that a library that
/// crashes, exits or hangs while loading fails only its own routes instead of taking the host down.
extension PluginRegistry {
    /// Probes the slot's library; without a prober (`--trust`), only refuses it when ``quarantine`` lists it.
    ///
    /// - Parameter fresh: Whether to probe it even when the cache has an entry for its file as it is now
    ///   (``PluginProber/probe(_:pin:fresh:)``).
    /// - Returns: What the probe found, with the digest of the bytes it loaded, which are the only ones the
    ///   host may then load; `nil` without a prober.
    func vet(_ slot: Slot, fresh: Bool = false) throws(PluginLoadError) -> ProbedPlugin? {
        guard prober != nil || quarantine != nil else { return nil }
        let entry = slot.entry
        let path = try searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: entry.name)
        guard let prober else {
            if let quarantine, let listed = quarantine.entry(for: path, identity: FileIdentity(path: path)) {
                throw quarantine.refusal(listed)
            }
            return nil
        }
        if let pin = entry.sha256 {
            try PluginCopy(reading: path, allowInsecure: allowsInsecurePlugins).verify(sha256: pin)
        }
        let probed = try prober.probe(path, pin: entry.sha256, fresh: fresh)
        onVetted?()
        return probed
    }

    /// Probes the slot's library, loads the plugins it requires, then opens a private copy of it, unless its
    /// content's fingerprint is `unchanged`; the copy is opened only if its bytes are the ones the probe
    /// loaded (their SHA-256, taken only when there is a probe). A file that changed in between (a build
    /// still writing, someone swapping it) is probed again, up to 3 times, and never again from the cache: an
    /// entry whose bytes were not the ones read would only be found again each time.
    ///
    /// Its requirements are read from the probe, so that a plugin whose requirements are not met never
    /// runs here; without a prober (`--trust`), from the plugin opened, which is then refused all the same.
    ///
    /// - Returns: The plugin (nil when the content's fingerprint is `unchanged`) and the fingerprint.
    func vettedCopy(of slot: Slot, unlessFingerprintIs unchanged: UInt64? = nil)
        throws(PluginLoadError) -> (plugin: LoadedPlugin?, fingerprint: UInt64)
    {
        for attempt in 1...3 {
            let probed = try vet(slot, fresh: attempt > 1)
            if let probed { try meetRequirements(of: slot, probed.requires, library: probed.path) }
            if let opened = try openCopy(of: slot, unlessFingerprintIs: unchanged, probedDigest: probed?.digest) {
                if probed == nil, let plugin = opened.plugin {
                    try meetRequirements(of: slot, plugin.description.requires, library: plugin.path)
                }
                return opened
            }
        }
        throw PluginLoadError(
            file: sourcePath(of: slot.entry.name) ?? slot.entry.library, kind: .probeFailed,
            message: "changed 3 times while it was being probed; load it again once it stops changing")
    }
}
