import Glibc

/// What a terminal shows of the keys typed at it while a command runs.
package enum TerminalEcho {
    /// Whether the terminal at `descriptor` shows a Ctrl-C typed at it as `^C` where the cursor is: its modes
    /// echo, control characters as `^X`. So is a terminal read as plain lines (`TERM=dumb`); one under the
    /// ``LineEditor`` is not, echo being off while a command runs. `false` for a descriptor that is no terminal.
    package static func showsControlC(on descriptor: Int32) -> Bool {
        var modes = termios()
        guard isatty(descriptor) == 1, tcgetattr(descriptor, &modes) == 0 else { return false }
        return modes.c_lflag & tcflag_t(ECHO) != 0 && modes.c_lflag & tcflag_t(ECHOCTL) != 0
    }
}
