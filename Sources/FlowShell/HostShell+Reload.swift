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
            guard host.registry.status(of: target) != nil else {
                throw FlowError("no plugin named '\(target)'; plugins: \(plugins)")
            }
            // Its slot outlives it (an image cannot be unloaded), but loading it again would serve nothing.
            guard !host.wasDropped(target) else {
                throw FlowError("plugin '\(target)' was removed from the manifest; plugins: \(plugins)")
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
