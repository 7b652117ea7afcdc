internal import CCrashHandler
// glibc's `stdout` and `stderr` are C globals that Swift cannot prove safe; the streams lock themselves.
@preconcurrency import Glibc
import HostSupport

/// An `exit` that plugin code calls in a host with no supervisor (`flowhost run` without `--supervise`), on
/// any thread: without a word, the run ended there with the status the plugin gave, `0` as often as not, so
/// that a script whose later lines and `expect`s never ran passed.
///
/// The host's own exits are marked (``CrashBreadcrumb/exitIsDeliberate()``); any other prints one line naming
/// the plugin whose code called `exit` (the first of the calling thread's return addresses in a plugin's
/// image), and the process ends with status 70 instead.
package enum UnsupervisedExit {
    /// The status a run that plugin code ended exits with.
    package static let status: Int32 = 70

    /// Reports plugin code's `exit` from now on; once, before any plugin code runs. A supervised host's crash
    /// handler records such an exit for its supervisor instead (``CrashBreadcrumb/installCrashHandler()``).
    package static func watch() {
        _ = flowhost_watch_unsupervised_exits { status, frames, count in
            var caller: (plugin: String, library: String)?
            for index in 0..<Int(count) {
                guard let frame = frames?[index] else { continue }
                caller = PluginImages.plugin(holdingCodeAt: UInt64(UInt(bitPattern: frame)))
                if caller != nil { break }
            }
            // A constructor or entry point, as its library opens, before its image is noted.
            if caller == nil { caller = PluginImages.openingOnThisThread() }
            let line = Array((UnsupervisedExit.report(status: status, caller: caller) + "\n").utf8)
            // The host's output, and only it: `fflush(nil)` would also wait for standard input's lock, which a
            // thread blocked reading a line holds, and the run would end only when one was typed.
            fflush(stdout)
            fflush(stderr)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            _exit(UnsupervisedExit.status)
        }
    }

    /// The line for an `exit(status)` called by `caller`'s code, or by code of no plugin's known.
    package static func report(status: Int32, caller: (plugin: String, library: String)?) -> String {
        // Its name and library (discovery takes any UTF-8 file name) without control characters: the line is
        // written raw, not through the console that cleans the others.
        let subject =
            caller.map { PrintableText.sanitized("plugin '\($0.plugin)' (\($0.library))") }
            ?? "code that is not flowhost's"
        return "flowhost: \(subject) called exit(\(status)) in the host's process; the run ended there, "
            + "unfinished (exit \(Self.status))"
    }
}
