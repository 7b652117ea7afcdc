import FlowHost
import PluginLoading

/// The shell's `wait reload PLUGIN [SECONDS]`: lets a script wait for a watched plugin's next generation, or
/// for a plugin dropped into a discovered directory to go live.
///
/// It keeps what the host reports per plugin: reloads, refused reloads, libraries back to the generation that
/// serves after a refusal, discoveries, removals, and the checked new libraries of plugins not loaded yet. A
/// wait ends at once with one of these seen since the start or since the last wait for it ended (the file may
/// land while the script runs an earlier command), else at the next one, a manifest edit that drops or
/// excludes the plugin (``withdraw(_:reason:)``) or the timeout, whichever comes first. When several
/// happened, the latest counts.
@MainActor
final class ReloadWait {
    /// How a wait ended.
    enum Result: Equatable {
        case reloaded(generation: Int)
        /// After a refused reload, the library is back to the bytes `generation`, which serves, was loaded from.
        case restored(generation: Int)
        /// The plugin appeared in a discovered directory and its routes went live.
        case discovered
        /// The plugin is not loaded yet and its library changed: nothing was loaded, and the new library will
        /// load on first use.
        case awaitsFirstUse
        /// The plugin is not loaded yet and its new library is one that loading would refuse, for `reason`.
        /// `said` as for ``refused(_:said:)``: the line that said so was printed before the wait took it.
        case wouldBeRefused(String, said: Bool)
        /// The reload was refused, for `reason`. `said`: a line printed before the wait took it said why
        /// (the refusal's own line, or the error of the `reload` command refused), so the wait need not
        /// say it again.
        case refused(String, said: Bool)
        /// Discovery said the plugin removed, its library `file` gone or holding plugin `nowHolds`: no
        /// generation comes until it is back.
        case removed(file: String, nowHolds: String?)
        /// A manifest edit dropped the plugin from `plugins` or excludes it, the line `reason` saying which: no
        /// generation comes until another brings it back.
        case withdrawn(String)
        case timedOut
        /// A person pressed Ctrl-C while it waited (``interrupt()``).
        case interrupted
    }

    /// Every reload and refusal by plugin, oldest first, and how many of them waits have returned.
    private var outcomes: [String: [Result]] = [:]
    private var consumed: [String: Int] = [:]
    private var pending: (plugin: String, id: Int, continuation: CheckedContinuation<Result, Never>)?
    private var nextID = 0
    /// An ``interrupt()`` that came before the wait it was meant for began, for that wait to take.
    private(set) var interruptPending = false

    /// Takes in every host event; reloads and refusals end a pending wait for their plugin.
    ///
    /// - Parameter said: Whether a refusal that ends no wait is said as it happens (its line is printed):
    ///   a later wait that returns it then points to that line instead of saying why again.
    /// - Returns: Whether `event` ended a pending wait, whose reply then says what it says.
    @discardableResult
    func notice(_ event: HostEvent, said: Bool) -> Bool {
        switch event {
        case .pluginReloaded(let plugin, let generation, _, _, _):
            record(.reloaded(generation: generation), of: plugin)
        case .reloadRefused(let plugin, let error):
            record(.refused(error.description, said: said), of: plugin)
        case .libraryRestored(let plugin, let generation):
            record(.restored(generation: generation), of: plugin)
        case .pluginDiscovered(let plugin, _, _, _, _):
            record(.discovered, of: plugin)
        case .unloadedLibraryChanged(let plugin, _, let refusal):
            record(refusal.map { .wouldBeRefused($0.description, said: said) } ?? .awaitsFirstUse, of: plugin)
        case .pluginRemoved(let plugin, let file, _, _, let nowHolds):
            record(.removed(file: file, nowHolds: nowHolds), of: plugin)
        default:
            false
        }
    }

    /// Waits for the next generation of `plugin` that no earlier wait returned, at most `timeout`; with a
    /// timeout of zero, only takes one already seen. A wait whose task is cancelled ends then, as one that
    /// timed out, rather than holding the task until the timeout.
    package func next(of plugin: String, within timeout: Duration) async -> Result {
        if let outcome = takeOutcome(of: plugin) { return outcome }
        if interruptPending {
            interruptPending = false
            return .interrupted
        }
        guard timeout > .zero, !Task.isCancelled else { return .timedOut }
        nextID += 1
        let id = nextID
        // `self` held strongly: the timer ends with the wait. A weak reference would give this object a side
        // table that the runtime points to in a form LeakSanitizer does not follow, so a host exiting with it
        // alive was reported leaking it (CI's AddressSanitizer run failed on that).
        let timer = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled, self.pending?.id == id else { return }
            self.resume(with: .timedOut)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pending = (plugin, id, continuation)
            }
        } onCancel: {
            Task { @MainActor in
                guard self.pending?.id == id else { return }
                self.resume(with: .timedOut)
            }
        }
    }

    /// Ends the pending wait as ``Result/interrupted``; without one, the next wait that begins before
    /// ``forgetInterrupt()`` (Ctrl-C pressed as the command that waits was starting).
    func interrupt() {
        guard pending != nil else {
            interruptPending = true
            return
        }
        resume(with: .interrupted)
    }

    /// The plugin the pending wait is for, if one is.
    var awaitedPlugin: String? { pending?.plugin }

    /// Ends the pending wait for `plugin` as ``Result/withdrawn(_:)``, for `reason`; nothing when none is
    /// pending for it (a later wait sees for itself that the plugin is out of use, or back).
    func withdraw(_ plugin: String, reason: String) {
        guard pending?.plugin == plugin else { return }
        _ = record(.withdrawn(reason), of: plugin)
    }

    /// Drops an ``interrupt()`` no wait took: the command it was meant for is over.
    func forgetInterrupt() {
        interruptPending = false
    }

    /// Keeps `outcome`; `true` when it ended a pending wait.
    private func record(_ outcome: Result, of plugin: String) -> Bool {
        var outcome = outcome
        // The wait's error says why; nothing else does.
        if pending?.plugin == plugin {
            if case .refused(let reason, _) = outcome { outcome = .refused(reason, said: false) }
            if case .wouldBeRefused(let reason, _) = outcome { outcome = .wouldBeRefused(reason, said: false) }
        }
        outcomes[plugin, default: []].append(outcome)
        guard pending?.plugin == plugin, let outcome = takeOutcome(of: plugin) else { return false }
        resume(with: outcome)
        return true
    }

    /// The plugins reloaded since the last wait for them ended (or since the start), whose next wait returns
    /// at once: what a host restarted at the cap of generations must know of its predecessor's reloads.
    package var unwaitedReloads: [String] {
        outcomes.compactMap { plugin, seen in
            guard consumed[plugin, default: 0] < seen.count, case .reloaded = seen.last else { return nil }
            return plugin
        }.sorted()
    }

    /// Marks the latest refusal of `plugin` as said, by a command's error (a `reload` refused), when no wait
    /// has returned it yet.
    func refusalSaid(of plugin: String) {
        guard var seen = outcomes[plugin], consumed[plugin, default: 0] < seen.count,
            case .refused(let reason, said: false)? = seen.last
        else { return }
        seen[seen.count - 1] = .refused(reason, said: true)
        outcomes[plugin] = seen
    }

    /// Takes in reloads of `plugins` that happened in the host this one replaces, as its first generation.
    package func carryOver(reloadsOf plugins: [String]) {
        for plugin in plugins { _ = record(.reloaded(generation: 1), of: plugin) }
    }

    /// The latest outcome no wait has returned yet, if any; marks all of them returned.
    private func takeOutcome(of plugin: String) -> Result? {
        let seen = outcomes[plugin] ?? []
        guard consumed[plugin, default: 0] < seen.count else { return nil }
        consumed[plugin] = seen.count
        return seen.last
    }

    private func resume(with result: Result) {
        guard let waiting = pending else { return }
        pending = nil
        waiting.continuation.resume(returning: result)
    }
}
