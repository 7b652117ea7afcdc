import FlowHost
import FlowKit
import Glibc

/// What a supervisor makes of a host that ended: the host's own exit, passed on, or a report naming the
/// plugin whose code crashed it, exited it or hung it, with that plugin's entry point (or the whole plugin)
/// quarantined, and a restart to follow.
enum CrashReport {
    /// What the restart loop does next.
    enum Verdict: Equatable {
        /// The host exited on its own with this status: the run is over.
        case hostExited(Int32)
        /// Restart after printing the report (`plugin 'x' (LIB) crashed with SIGSEGV in crashy.Later;
        /// quarantined`), to which the loop adds `; restarting` or that it gives up.
        case restart(report: String, culprit: CrashCulprit?)
    }

    /// Reads the breadcrumb page at `breadcrumb` of a host that ended as `ending`, lays the ending at the
    /// door of the plugin whose code was running (``CrashBreadcrumb/Page/culprit``), quarantines its entry
    /// point in `quarantine`, and says what to do next.
    ///
    /// - Parameters:
    ///   - cause: How to say what happened when the supervisor caused the ending itself, for example
    ///     `hung for 10 s` when its watchdog sent SIGQUIT; by default, from the signal or the exit status.
    ///   - quarantine: Where to quarantine; by default the standard cache directory's.
    static func verdict(
        for ending: SupervisedHost.Ending, breadcrumb: String, cause: String? = nil,
        quarantine: PluginQuarantine? = CacheDirectory.standard().map(PluginQuarantine.init)
    ) -> Verdict {
        let page = CrashBreadcrumb.Page(path: breadcrumb)
        switch ending {
        case .exited(let status):
            // An exit the host did not mark as its own was recorded with its caller; a plugin's, when its
            // code is on the stack. An exit with a crumb on top is laid at that call, as ever.
            var exitedInPlugin = false
            if case .exit? = page?.crash?.kind { exitedInPlugin = true }
            guard let culprit = page?.culprit, exitedInPlugin || page?.crumb != nil else { return .hostExited(status) }
            let how = cause ?? (exitedInPlugin ? "called exit(\(status))" : "exited with status \(status)")
            return .restart(report: report(culprit, how: how, kind: .exited, in: quarantine), culprit: culprit)
        case .signaled(let signal) where cause == nil && [SIGINT, SIGTERM, SIGHUP, SIGKILL].contains(signal):
            // Stopped from outside (or by the kernel, out of memory): no plugin is known to be at fault.
            return .restart(report: "the host was stopped by \(ProcessInfoLite.signalName(signal))", culprit: nil)
        case .signaled(let signal):
            let how = cause ?? "crashed with \(ProcessInfoLite.signalName(signal))"
            let kind: PluginLoadError.Kind = cause == nil ? .crashed : .timedOut
            guard let culprit = page?.culprit else { return .restart(report: "the host \(how)", culprit: nil) }
            return .restart(report: report(culprit, how: how, kind: kind, in: quarantine), culprit: culprit)
        }
    }

    /// Quarantines `culprit`'s entry points (or, knowing none, its library) in `quarantine`; the report.
    private static func report(
        _ culprit: CrashCulprit, how: String, kind: PluginLoadError.Kind, in quarantine: PluginQuarantine?
    ) -> String {
        let report = "plugin '\(culprit.plugin)' (\(culprit.library)) \(how) in \(culprit.place)"
        guard let quarantine else {
            return report + "; not quarantined: neither XDG_CACHE_HOME nor HOME is set"
        }
        let reason = "\(how) in \(culprit.place) in a supervised run"
        do {
            guard !culprit.entryPoints.isEmpty else {
                try quarantine.add(culprit.library, kind: kind, reason: reason)
                return report + "; quarantined"
            }
            var whole: Int?
            for entryPoint in culprit.entryPoints {
                let added = try quarantine.add(culprit.library, kind: kind, reason: reason, entryPoint: entryPoint)
                if case .libraryAfterEntryPoints(let count) = added { whole = count }
            }
            return report
                + (whole.map { "; quarantined, the whole plugin: \($0) of its entry points crashed" } ?? "; quarantined")
        } catch {
            return report + "; not quarantined: \(error.message)"
        }
    }
}
