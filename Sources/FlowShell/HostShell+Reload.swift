import FlowHost
import FlowKit

/// The `reload` command, and the refusal its error says, so that the command's events need not.
extension HostShell {
    /// Reloads; a refused reload or a rejected manifest fails the command (the host keeps running).
    func reload(_ target: String) throws(FlowError) {
        let events: [HostEvent]
        if target == "manifest" {
            events = [host.reloadManifest()]
        } else if target.isEmpty {
            events = host.reloadAll(force: true)
        } else {
            let plugins = host.reloadablePluginNames.joined(separator: ", ")
            guard host.knowsPlugin(target) else {
                throw FlowError("no plugin named '\(target)'; plugins: \(plugins)")
            }
            if let outOfUse = host.outOfUse(target) {
                try retry(target, outOfUse, plugins: plugins)
                return
            }
            events = [host.reloadPlugin(target, force: true)]
        }
        for event in events {
            switch event {
            case .reloadRefused(let plugin, let error):
                // The error says why; a `wait reload` of the plugin that returns this refusal need not.
                restatedRefusal = (plugin, error.description)
                reloadWait.refusalSaid(of: plugin)
                throw FlowError("reload refused: \(error)")
            case .manifestRejected(let errors):
                let count = errors.errors.count + errors.omitted
                throw FlowError("manifest rejected: \(count) problem\(count == 1 ? "" : "s")")
            default: continue
            }
        }
    }

    /// `reload NAME` of a plugin not in use. One that discovery removed or refused is read again, as a change
    /// to its file is under `--watch`: back (its file fixed or put back), it is reported as discovered and
    /// its routes go live; else the command fails with why. One a manifest edit dropped or that the manifest
    /// excludes is not loaded again (its slot outlives it, since an image cannot be unloaded): only a
    /// manifest edit brings it back.
    private func retry(_ target: String, _ outOfUse: Host.OutOfUse, plugins: String) throws(FlowError) {
        guard outOfUse.isRetried else { throw FlowError("\(outOfUse.reason(target)); plugins: \(plugins)") }
        host.rediscover()
        guard let still = host.outOfUse(target) else { return }
        if case .refused = still { throw FlowError(still.reason(target)) }
        throw FlowError("\(still.reason(target)); plugins: \(host.reloadablePluginNames.joined(separator: ", "))")
    }

    /// The events of the command, but for the refusal its error gives (``restatedRefusal``).
    var describedEvents: [HostEvent] {
        var events = events
        guard let restated = restatedRefusal,
            let index = events.firstIndex(where: { event in
                guard case .reloadRefused(let plugin, let error) = event else { return false }
                return plugin == restated.plugin && error.description == restated.reason
            })
        else { return events }
        events.remove(at: index)
        return events
    }
}
