import Glibc
import HostSupport
import LineEditing

/// Ctrl-C while a `wait reload` runs, typed at this process's prompt or a supervisor's.
extension ShellSession {
    /// Takes Ctrl-C (SIGINT) as the end of the `wait reload` under way, or of the next one to start, rather
    /// than of the program: while a person's `wait` runs, and at a supervisor's prompt between commands
    /// (until a command that does not wait).
    func takeInterrupts() {
        guard interrupts == nil else { return }
        interrupts = KeyboardInterrupt.Catch { [shell] in
            // A terminal that echoes left `^C` where the cursor was: what is printed next starts below it.
            if TerminalEcho.showsControlC(on: STDOUT_FILENO) {
                print("")
                flushOutput()
            }
            shell.reloadWait.interrupt()
        }
    }

    /// Ctrl-C ends the program again, before a command that does not wait; one taken between commands that
    /// no wait took ends it now, as it would have without the catch.
    func endInterrupts() {
        guard let catching = interrupts else { return }
        catching.end()
        interrupts = nil
        if shell.reloadWait.interruptPending { KeyboardInterrupt.raiseOutsideCatch() }
    }
}
