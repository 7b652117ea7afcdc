import FlowHost
import FlowKit
import Glibc

/// Why a supervised host ended against the session's will, and the one place that turns it into the line
/// the supervisor prints and the quarantine of the plugin to blame.
///
/// The plugin is the one the host's ``CrashBreadcrumb`` names: what the host was calling into when it
/// ended. (Blaming the code at the faulting address and in the first frames, where the breadcrumb page holds
/// them, goes in ``report(quarantining:)`` too.)
struct SupervisorIncident {
    enum Cause: Equatable {
        /// Died of a signal other than the ones sent from outside (SIGILL, SIGSEGV, SIGABRT...).
        case crashed(signal: Int32)
        /// Exited without having said it would: plugin code called `exit`. `when`: `in the middle of a
        /// command`, `while starting`, `between commands`, `while exiting`.
        case exited(status: Int32, when: String)
        /// Did not finish a command (or its start) within `--hang-timeout`; killed with SIGQUIT.
        case hung(seconds: String, when: String)
        /// Stopped a second time with `signal` after it was continued once; killed.
        case stoppedAgain(signal: Int32)
        /// Plugin code closed or replaced descriptor 0, 1 or 2; the host exited or was killed.
        case lostDescriptor(Int32)
        /// Plugin code closed descriptor 3, the link; killed.
        case linkClosed
        /// Ended by SIGINT, SIGTERM, SIGHUP or SIGKILL from outside (or the kernel, out of memory): no plugin
        /// is known to be at fault.
        case stoppedFromOutside(signal: Int32)
    }

    var cause: Cause
    /// What the host was running when it ended, from its breadcrumb.
    var crumb: CrashBreadcrumb.Crumb?

    /// Whether it counts in the summary of a script: everything but a host stopped from outside.
    var isPluginFault: Bool {
        if case .stoppedFromOutside = cause { false } else { true }
    }

    /// The report's line, without the place before it and `; restarting` after it; quarantines the library
    /// that the breadcrumb names when the cause is the plugin's doing.
    func report(quarantining: Bool = true) -> String {
        let subject = crumb.map { "plugin '\($0.plugin)' (\($0.library))" } ?? "the host"
        switch cause {
        case .crashed(let signal):
            return blame("crashed with \(ProcessInfoLite.signalName(signal))", kind: .crashed)
        case .exited(let status, let when):
            guard crumb != nil else { return "the host exited with status \(status) \(when)" }
            return blame("called exit(\(status))", kind: .exited)
        case .hung(let seconds, let when):
            guard crumb != nil else { return "the host hung for \(seconds) s \(when); killed" }
            return blame("hung for \(seconds) s", kind: .timedOut)
        case .stoppedAgain(let signal):
            let how = "stopped the host with \(ProcessInfoLite.signalName(signal)) a second time"
            guard crumb != nil else {
                return "the host stopped with \(ProcessInfoLite.signalName(signal)) again; killed"
            }
            return blame(how, kind: .timedOut)
        case .lostDescriptor(let descriptor):
            return "\(subject == "the host" ? "plugin code" : subject) closed or replaced the host's "
                + "\(Self.descriptorName(descriptor)) (descriptor \(descriptor)); the host cannot go on"
        case .linkClosed:
            return "\(subject == "the host" ? "plugin code" : subject) closed the host's link to the supervisor "
                + "(descriptor 3); killed the host"
        case .stoppedFromOutside(let signal):
            return "the host was stopped by \(ProcessInfoLite.signalName(signal))"
        }

        func blame(_ how: String, kind: PluginLoadError.Kind) -> String {
            guard let crumb else { return "the host \(how)" }
            let report = "plugin '\(crumb.plugin)' (\(crumb.library)) \(how) in \(crumb.place)"
            guard quarantining else { return report }
            return report + "; " + Self.quarantine(crumb.library, kind: kind, reason: "\(how) in \(crumb.place)")
        }
    }

    /// The incident in a script's summary: `crashy.Trap (SIGILL)`.
    var summary: String {
        let what =
            switch cause {
            case .crashed(let signal): ProcessInfoLite.signalName(signal)
            case .exited(let status, _): "exit(\(status))"
            case .hung(let seconds, _): "hung for \(seconds) s"
            case .stoppedAgain(let signal): "\(ProcessInfoLite.signalName(signal)) twice"
            case .lostDescriptor(let descriptor): "closed descriptor \(descriptor)"
            case .linkClosed: "closed descriptor 3"
            case .stoppedFromOutside(let signal): ProcessInfoLite.signalName(signal)
            }
        return "\(crumb?.place ?? "the host") (\(what))"
    }

    /// The line that ends a script that saw `incidents`: `2 plugin crashes during the script: crashy.Trap
    /// (SIGILL), hangy.Spin (hung for 10 s)`.
    static func summary(of incidents: [SupervisorIncident]) -> String {
        let count = incidents.count
        return "\(count) plugin crash\(count == 1 ? "" : "es") during the script: "
            + incidents.map(\.summary).joined(separator: ", ")
    }

    /// `duration` in seconds as a report says it: `10`, `0.5`.
    static func seconds(_ duration: Duration) -> String {
        let seconds = duration / .seconds(1)
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    private static func descriptorName(_ descriptor: Int32) -> String {
        switch descriptor {
        case 0: "standard input"
        case 1: "standard output"
        default: "standard error"
        }
    }

    /// Quarantines `library`; what to say about it.
    private static func quarantine(_ library: String, kind: PluginLoadError.Kind, reason: String) -> String {
        guard let directory = CacheDirectory.standard() else {
            return "not quarantined: neither XDG_CACHE_HOME nor HOME is set"
        }
        do {
            try PluginQuarantine(directory: directory).add(library, kind: kind, reason: reason + " in a supervised run")
            return "quarantined"
        } catch {
            return "not quarantined: \(error.message)"
        }
    }
}
