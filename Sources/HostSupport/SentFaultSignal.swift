import CProcessControl
import Glibc

/// A signal of a fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) that another process sent, as
/// `kill -SEGV PID` does, ends flowhost by that signal (status 128+N in a shell), as it ends a program that does
/// not catch it.
///
/// The Swift runtime's backtracer, which takes these signals before `main` runs, printed a crash report blaming
/// whatever the thread that received it was running (`Bad pointer dereference at` the sender's process id), on a
/// terminal waited 30 s for a key, then returned, counting on the fault to recur: a sent signal does not, and
/// flowhost went on running. The line editor's handler, in front, restored the terminal's modes and raised the
/// signal again, which the backtracer took for this process's own.
package enum SentFaultSignal {
    /// Puts the handler in front of the runtime's: first thing in `main`, after ``QuitSignal/endsTheProcess()``.
    /// The line editor's handler and a supervised host's crash handler go in front of it, and see for
    /// themselves (``cameFromAnotherProcess(_:)``).
    package static func endsTheProcess() {
        _ = flowhost_end_by_sent_faults()
    }

    /// Whether the signal `info` describes was sent by another process (`kill`, `sigqueue`, `tgkill`), rather
    /// than raised by the hardware or by this process (`abort`, `raise`). Safe in a signal handler.
    package static func cameFromAnotherProcess(_ info: UnsafePointer<siginfo_t>?) -> Bool {
        flowhost_signal_is_from_another_process(info) != 0
    }

    /// Runs `action`, the one a handler of `signal` went in front of, as the kernel would have run it for `info`
    /// and `context`: nothing for `SIG_DFL` and `SIG_IGN`. Safe in a signal handler.
    package static func run(
        _ action: UnsafePointer<sigaction>, for signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?,
        _ context: UnsafeMutableRawPointer?
    ) {
        flowhost_run_signal_action(action, signal, info, context)
    }

    /// Ends the process by `signal`, with its default action: in a handler of `signal`, as the handler
    /// returns. Safe in a signal handler.
    package static func endByIt(_ signal: Int32) {
        flowhost_end_by_signal(signal)
    }
}
