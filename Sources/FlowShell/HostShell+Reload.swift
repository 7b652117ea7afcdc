import FlowHost
import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// The `reload` command, and the refusal its error says, so that the command's events need not.
extension HostShell {
    /// Reloads; a refused reload or a rejected manifest fails the command (the host keeps running).
    func reload(_ target: String) throws(FlowError) {
        if target == "manifest" {
            try failOnRefusal([host.reloadManifest()])
        } else if target.isEmpty {
            try failOnRefusal(host.reloadAll(force: true))
        } else {
            guard host.knowsPlugin(target) else { throw FlowError("no plugin named '\(target)'; \(pluginList)") }
            if let outOfUse = host.outOfUse(target) {
                try retry(target, outOfUse)
            } else {
                try failOnRefusal([host.reloadPlugin(target, force: true)])
            }
        }
    }

    /// Fails the command for the first refused reload or rejected manifest among `events`.
    private func failOnRefusal(_ events: [HostEvent]) throws(FlowError) {
        for event in events {
            switch event {
            case .reloadRefused(let plugin, let error):
                // The error says why; a `wait reload` of the plugin that returns this refusal need not.
                restatedRefusal = (plugin, error.description)
                reloadWait.refusalSaid(of: plugin)
                throw FlowError("reload refused: \(error)")
            case .manifestRejected(let errors):
                let count = errors.errors.count + errors.omitted
                throw FlowError("manifest rejected: \(counted(count, "problem"))")
            default: continue
            }
        }
    }

    /// `plugins: ...`, the plugins `reload NAME` reloads now (`none`), as an error ends with them.
    var pluginList: String {
        let names = host.reloadablePluginNames
        return "plugins: " + (names.isEmpty ? "none" : names.joined(separator: ", "))
    }

    /// `reload NAME` of a plugin not in use. One that discovery removed or refused is read again, as a change
    /// to its file is under `--watch`: back (its file fixed or put back), it is reported as discovered and
    /// its routes go live, and its reload refused fails the command as any other; else the command fails
    /// with why. One a manifest edit dropped or that the manifest excludes is not loaded again (its slot
    /// outlives it, since an image cannot be unloaded): only a manifest edit brings it back.
    private func retry(_ target: String, _ outOfUse: Host.OutOfUse) throws(FlowError) {
        guard outOfUse.isRetried else { throw FlowError("\(outOfUse.reason(target)); \(pluginList)") }
        let events = host.rediscover()
        try failOnRefusal(events)
        guard let still = host.outOfUse(target) else { return }
        guard case .refused(let error) = still else { throw FlowError("\(still.reason(target)); \(pluginList)") }
        // Refused anew: the problem discovery reported is what the error says, said once.
        if events.contains(where: { if case .discoveryProblem(error, _) = $0 { true } else { false } }) {
            restatedProblem = error.description
        }
        throw FlowError(still.reason(target))
    }

    /// The events of the command, but for the refusal or problem its error gives (``restatedRefusal``,
    /// ``restatedProblem``).
    var describedEvents: [HostEvent] {
        var events = events
        if let restatedProblem {
            events.removeAll { event in
                if case .discoveryProblem(let error, _) = event { error.description == restatedProblem } else { false }
            }
        }
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
