import Glibc

/// SIGQUIT (`kill -QUIT`, or Ctrl-\ while a command runs at a prompt) ends flowhost by that signal, as it ends
/// any program that does not catch it: the line editor's handler gives the terminal its modes back first, and a
/// supervised host's crash handler records the hang the watchdog's SIGQUIT is about.
///
/// The Swift runtime's backtracer, which takes SIGQUIT before `main` runs (with SIGSEGV, SIGBUS, SIGILL,
/// SIGFPE, SIGABRT and SIGTRAP, when `SWIFT_BACKTRACE` does not turn it off), prints a crash report (on a
/// terminal, after waiting 30 s for a key to inspect the program), sets the default actions back and returns,
/// counting on the fault to recur and end the process. A SIGQUIT another process sent does not recur: flowhost
/// printed `Program crashed` and went on running.
package enum QuitSignal {
    /// Gives SIGQUIT its default action back, unless the program was started ignoring it (as `nohup`-like
    /// launchers do; the runtime then leaves it alone too). First thing in `main`: the line editor and a
    /// supervised host's crash handler put their own handlers in front of what this leaves, and end the
    /// process through it.
    package static func endsTheProcess() {
        var current = sigaction()
        guard sigaction(SIGQUIT, nil, &current) == 0, !current.ignoresTheSignal else { return }
        var standard = sigaction()
        sigemptyset(&standard.sa_mask)
        sigaction(SIGQUIT, &standard, nil)
    }
}
