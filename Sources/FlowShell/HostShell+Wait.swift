import FlowHost
import FlowKit

/// Commands that wait: the shell's asynchronous entry point.
extension HostShell {
    /// How long `wait reload` waits when the command gives no number of seconds.
    package static let defaultReloadWait: Duration = .seconds(10)

    /// Runs one command line like ``execute(_:)``, and the commands that wait for something to happen
    /// (`wait reload PLUGIN [SECONDS]`, `restore FILE`, which awaits the services it replaces) without
    /// blocking the main actor meanwhile. At its end, the probes the line's first loads kept pending are
    /// written to the registry cache if its last write is a second old.
    ///
    /// A command first awaits the service work a reload left running (``FlowKit/BaseFlowCoordinator/serviceWorkDone()``):
    /// a replaced async service sets its dependencies only once started, and until then an action would reach the
    /// service being stopped, and a manager of the new generation would find the old one's dependency.
    package func perform(_ line: String) async -> Reply {
        defer { host.writeDueProbes() }
        guard let command = Self.command(in: line) else { return execute(line) }
        await serviceWorkDone()
        let (word, rest) = command.splitFirstWord()
        if word == "restore" { return await performRestore(rest) }
        guard word == "wait" else { return execute(line) }
        return await wait(rest)
    }

    /// Returns once the service work a reload left running is done: what a command first awaits, which a prompt
    /// awaits before the command's output begins (``ShellSession``).
    package func serviceWorkDone() async {
        await host.coordinator.serviceWorkDone()
    }

    /// Whether `line` is a command that waits (`wait ...`): one that Ctrl-C, pressed by a person at a
    /// terminal while it waits, interrupts rather than the program (``ShellSession``, the supervisor).
    nonisolated package static func isWait(_ line: String) -> Bool {
        command(in: line)?.firstWord == "wait"
    }

    private func wait(_ arguments: String) async -> Reply {
        let usage = Reply(lines: [], status: .error("usage: wait reload PLUGIN [SECONDS]"))
        let words = arguments.split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count == 2 || words.count == 3, words[0] == "reload" else { return usage }
        let plugin = words[1]
        // With discovery, a plugin may be dropped in later: its name is known once it is found.
        guard host.registry.status(of: plugin) != nil || host.composition != nil else {
            // Those `reload` accepts, as its error lists them: not those a manifest edit dropped.
            return Reply(lines: [], status: .error("no plugin named '\(plugin)'; \(pluginList)"))
        }
        var timeout = Self.defaultReloadWait
        if words.count == 3 {
            guard let seconds = Double(words[2]), seconds > 0, seconds <= 3600 else {
                return Reply(
                    lines: [],
                    status: .error("wait reload: '\(words[2])' is not a number of seconds above 0 and at most 3600"))
            }
            timeout = .milliseconds(Int((seconds * 1000).rounded()))
        }
        // Removed, its library still gone: no generation comes until it is back, so the wait says so at once.
        if let gone = host.goneLibrary(of: plugin) {
            return Self.removed(plugin, gone.library, nowHolds: gone.nowHolds)
        }
        // Dropped from the manifest or excluded by it: none comes until a manifest edit brings it back.
        if let reason = withdrawal(of: plugin) { return Self.withdrawn(reason) }
        var result = await reloadWait.next(of: plugin, within: waitsForReloads ? timeout : .zero)
        if case .removed = result, host.goneLibrary(of: plugin) == nil {
            // Its library is back since: its discovery (or refusal) is still to come.
            result = await reloadWait.next(of: plugin, within: waitsForReloads ? timeout : .zero)
        }
        switch result {
        case .reloaded(let generation):
            return Reply(lines: ["plugin '\(plugin)': generation \(generation) serves", topLine], status: .ok)
        case .restored(let generation):
            return Reply(
                lines: [
                    "plugin '\(plugin)': generation \(generation) keeps serving; its library is back to the build it was loaded from",
                    topLine,
                ],
                status: .ok)
        case .discovered:
            return Reply(lines: ["plugin '\(plugin)': discovered, its routes are live", topLine], status: .ok)
        case .awaitsFirstUse:
            return Reply(
                lines: ["plugin '\(plugin)': not loaded yet; its new library will load on first use", topLine],
                status: .ok)
        case .refused(let reason, let said):
            // Said once: a refusal printed before the wait began is pointed to, not said again.
            let why = said ? " before the wait began; the 'reload refused' line above says why" : ": \(reason)"
            return Reply(lines: [], status: .error("waited for plugin '\(plugin)', but its reload was refused\(why)"))
        case .wouldBeRefused(let reason, let said):
            let why = said ? " before the wait began; the line above says why" : ": \(reason)"
            return Reply(
                lines: [],
                status: .error(
                    "waited for plugin '\(plugin)', not loaded yet, but its new library would be refused\(why)"))
        case .removed(let library, let nowHolds):
            return Self.removed(plugin, library, nowHolds: nowHolds)
        case .withdrawn(let reason):
            return Self.withdrawn(reason)
        case .interrupted:
            return Reply(lines: [], status: .error("wait reload: interrupted"))
        case .timedOut:
            let hint = host.watcher == nil ? "; without --watch only a 'reload' command reloads it" : ""
            return Reply(
                lines: [],
                status: .error("no new generation of plugin '\(plugin)' within \(timeout.seconds) s\(hint)"))
        }
    }
}

extension HostShell {
    /// The error of a wait for `plugin`, removed, its `library` gone or holding plugin `nowHolds`.
    fileprivate static func removed(_ plugin: String, _ library: String, nowHolds: String?) -> Reply {
        let now = nowHolds.map { "now holds plugin '\($0)'" } ?? "is gone"
        return Reply(
            lines: [], status: .error("wait reload: plugin '\(plugin)' was removed; its library \(library) \(now)"))
    }

    /// The error of a wait for a plugin the manifest dropped or excludes, `reason` saying which.
    fileprivate static func withdrawn(_ reason: String) -> Reply {
        Reply(lines: [], status: .error("wait reload: \(reason)"))
    }

    /// Why no generation of `plugin` comes until a manifest edit brings it back: the manifest in force dropped
    /// it from `plugins` (`plugin 'P' was removed from the manifest`), or excludes it; `nil` otherwise.
    func withdrawal(of plugin: String) -> String? {
        switch host.outOfUse(plugin) {
        case let outOfUse? where !outOfUse.isRetried: outOfUse.reason(plugin)
        default: nil
        }
    }

    /// Ends the pending wait when the manifest reloaded by `event` dropped its plugin or excludes it.
    func endWaitIfWithdrawn(by event: HostEvent) {
        guard case .manifestReloaded = event, let plugin = reloadWait.awaitedPlugin,
            let reason = withdrawal(of: plugin)
        else { return }
        reloadWait.withdraw(plugin, reason: reason)
    }
}

extension Duration {
    /// Whole seconds when whole, else with the fraction: `10`, `0.5`.
    fileprivate var seconds: String {
        let (whole, attoseconds) = components
        guard attoseconds != 0 else { return "\(whole)" }
        return "\(Double(whole) + Double(attoseconds) / 1e18)"
    }
}
