import FlowHost
import FlowKit
import Glibc
import HostSupport
import PluginLoading

/// Why a supervised host ended against the session's will, and the one place that turns it into the line
/// the supervisor prints and the quarantine of the plugin to blame.
///
/// The plugin is the one whose code was running, read from the host's ``CrashBreadcrumb`` page
/// (``CrashBreadcrumb/Page/culprit``): the plugin image holding the faulting address or the first frames the
/// host's crash handler recorded (for a signal, the watchdog's SIGQUIT, or an exit the host did not mark as
/// its own), else the call the host was in. Its entry point (a manager, an action, a service) is quarantined,
/// or the whole plugin once three of them have been. A library being loaded is blamed, whole, only for a
/// crash or exit recorded on the thread loading it, or on another with its code first on the stack; never for
/// a hang, which may be another thread's holding the loader's lock, or the start's time spent before the
/// load: the line then names the load, and nothing is quarantined.
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
        /// Plugin code closed or replaced descriptor 0, 1, 2 or 5 (the commands); the host exited or was killed.
        case lostDescriptor(Int32)
        /// Plugin code closed descriptor 3, the link; killed.
        case linkClosed
        /// Ended by SIGINT, SIGTERM, SIGHUP or SIGKILL from outside (or the kernel, out of memory), or by a
        /// fault's signal that another process sent (`kill -SEGV`, as the host's crash handler recorded its
        /// sender): no plugin is known to be at fault.
        case stoppedFromOutside(signal: Int32)
    }

    var cause: Cause
    /// How the host ended, as its restart names the snapshot it restores.
    var ending: SupervisorLink.Ending {
        switch cause {
        case .crashed: .crash
        case .hung: .hang
        case .exited: .exit
        case .stoppedAgain, .stoppedFromOutside: .stop
        case .lostDescriptor, .linkClosed: .ended
        }
    }
    /// Whose code the host was running when it ended; `nil`: nobody's known.
    var culprit: CrashCulprit?
    /// For a crash, the fatal error the runtime reported.
    var fatalError: CrashOutputFilter.FatalError?
    /// The load of a library under way when the host ended, when nothing shows that library is to blame:
    /// the line names it, and quarantines nothing.
    var loading: CrashBreadcrumb.Crumb?
    /// Whether nobody is blamed for a crash recorded on a thread other than the one calling into plugins: one
    /// with no plugin code on its stack nor as its start routine (a thread started at libc's own function, a
    /// worker's running libc's code), whose creator nothing records. The line says so.
    var onAnonymousThread = false

    /// The incident `cause`, blamed from the breadcrumb `page` of the host that ended, whose runtime
    /// reported `fatalError` (``SupervisedHost/fatalError``).
    init(cause: Cause, page: CrashBreadcrumb.Page?, fatalError: CrashOutputFilter.FatalError? = nil) {
        self.cause = cause
        if case .crashed = cause { self.fatalError = fatalError }
        switch cause {
        case .exited:
            // An exit the host did not mark as its own was recorded with its caller: a plugin's, when its code
            // is on the stack; else an exit inside a call into a plugin is that call's.
            var recorded = false
            if case .exit? = page?.crash?.kind { recorded = true }
            culprit = recorded || page?.crumb != nil ? page?.culprit : nil
        case .stoppedFromOutside: culprit = nil
        default: culprit = page?.culprit
        }
        // The watchdog's SIGQUIT lands on the loading thread whoever holds it up: not evidence.
        if case .hung = cause, culprit?.whileLoading == true { culprit = nil }
        if culprit == nil, isPluginFault, let crumb = page?.crumb, crumb.isLoading { loading = crumb }
        if case .crashed = cause, culprit == nil, loading == nil, let page, let crash = page.crash,
            case .signal = crash.kind, page.crumbThread != 0, crash.thread != page.crumbThread
        {
            onAnonymousThread = true
        }
    }

    /// Whether it is laid at plugin code (a crash, a hang, an exit...), not a host stopped from outside.
    var isPluginFault: Bool {
        if case .stoppedFromOutside = cause { false } else { true }
    }

    /// The report's line, without the place before it and `; restarting` after it; quarantines the entry
    /// point to blame in `quarantine` when the cause is the plugin's doing.
    func report(quarantine: PluginQuarantine? = CacheDirectory.standard().map(PluginQuarantine.init)) -> String {
        let subject = culprit.map { "plugin '\($0.plugin)' (\($0.library))" } ?? "plugin code"
        // A load under way that is not to blame: named, and said not to be blamed.
        let during = loading.map { " while plugin '\($0.plugin)' (\($0.library)) was loading its library" }
        let notLaid = loading == nil ? "" : "; not laid at it (not shown to be its code)"
        switch cause {
        case .crashed(let signal):
            let fatal = fatalError.map { " (\($0))" } ?? ""
            let anonymous =
                onAnonymousThread
                ? " on a thread with no plugin code on its stack nor as its start routine (not a plugin call's; its"
                    + " creator is not recorded): laid at no plugin; to learn whose thread it is, run it without"
                    + " --supervise under a debugger" : ""
            return blame(
                "crashed with \(ProcessInfoLite.signalName(signal))", kind: .crashed, detail: fatal + anonymous)
        case .exited(let status, let when):
            guard culprit != nil else {
                return "the host exited with status \(status)\(during ?? " \(when)")\(notLaid)"
            }
            return blame("called exit(\(status))", kind: .exited)
        case .hung(let seconds, let when):
            guard culprit != nil else {
                return "the host hung for \(seconds) s\(during ?? " \(when)"); killed\(notLaid)"
            }
            return blame("hung for \(seconds) s", kind: .timedOut)
        case .stoppedAgain(let signal):
            guard culprit != nil else {
                return
                    "the host stopped with \(ProcessInfoLite.signalName(signal)) again\(during ?? ""); killed\(notLaid)"
            }
            return blame("stopped the host with \(ProcessInfoLite.signalName(signal)) a second time", kind: .timedOut)
        case .lostDescriptor(let descriptor):
            return "\(subject) closed or replaced the host's \(Self.descriptorName(descriptor)) "
                + "(descriptor \(descriptor)); the host cannot go on"
        case .linkClosed:
            return "\(subject) closed the host's link to the supervisor (descriptor 3); killed the host"
        case .stoppedFromOutside(let signal):
            return "the host was stopped by \(ProcessInfoLite.signalName(signal))"
        }

        func blame(_ how: String, kind: PluginLoadError.Kind, detail: String = "") -> String {
            guard let culprit else { return "the host \(how)\(detail)\(during ?? "")\(notLaid)" }
            // While loading, the library is to blame, whole; the quarantine says it as a probe's does.
            let place = culprit.whileLoading ? "while \(culprit.place)" : "in \(culprit.place)"
            let report = "plugin '\(culprit.plugin)' (\(culprit.library)) \(how) \(place)\(detail)"
            let reason = culprit.whileLoading ? "\(how) while loading" : "\(how) in \(culprit.place)"
            return report + "; " + Self.quarantine(culprit, kind: kind, reason: reason, in: quarantine)
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
        let place = culprit.map { $0.whileLoading ? "\($0.plugin) while loading" : $0.place }
        return "\(place ?? "the host") (\(what))"
    }

    /// The lines that end a script that saw `incidents`, each of which left a command not run as written: the
    /// plugins' doing, `2 plugin crashes during the script: crashy.Trap (SIGILL), hangy.Spin (hung for 10 s)`,
    /// then the stops from outside (`kill`, the kernel's out-of-memory killer, a probed library's code that
    /// kills its prober's process), `1 stop from outside during the script: the host (SIGKILL)`.
    static func summary(of incidents: [SupervisorIncident]) -> [String] {
        let faults = incidents.filter(\.isPluginFault)
        let stops = incidents.filter { !$0.isPluginFault }
        func line(_ incidents: [SupervisorIncident], _ what: String) -> [String] {
            incidents.isEmpty
                ? []
                : ["\(incidents.count) \(what) during the script: " + incidents.map(\.summary).joined(separator: ", ")]
        }
        return line(faults, "plugin crash" + (faults.count == 1 ? "" : "es"))
            + line(stops, "stop" + (stops.count == 1 ? "" : "s") + " from outside")
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
        case 2: "standard error"
        case SharedTrace.descriptor: "trace"
        default: "input of commands"
        }
    }

    /// Quarantines `culprit`'s entry points (or, knowing none, its library) in `quarantine`; what to say
    /// about it.
    private static func quarantine(
        _ culprit: CrashCulprit, kind: PluginLoadError.Kind, reason: String, in quarantine: PluginQuarantine?
    ) -> String {
        guard let quarantine else { return "not quarantined: neither XDG_CACHE_HOME nor HOME is set" }
        let reason = reason + " in a supervised run"
        do {
            guard !culprit.entryPoints.isEmpty else {
                try quarantine.add(culprit.library, kind: kind, reason: reason)
                return "quarantined"
            }
            var whole: String?
            for entryPoint in culprit.entryPoints {
                let added = try quarantine.add(culprit.library, kind: kind, reason: reason, entryPoint: entryPoint)
                if case .libraryAfterEntryPoints(let count, let failed) = added {
                    whole = "\(count) of its entry points \(failed)"
                }
            }
            return whole.map { "quarantined, the whole plugin: \($0)" } ?? "quarantined"
        } catch {
            return "not quarantined: \(error.message)"
        }
    }
}
