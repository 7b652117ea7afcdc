// glibc's `stdout` is a C global that Swift cannot prove safe; the stream locks itself.
@preconcurrency import Glibc
import HostSupport

/// Flushes standard output, and only it: `fflush(nil)` would also wait for standard input's lock, which the
/// reading thread holds while it blocks in `read`, so every output would wait for the next line typed.
package func flushOutput() {
    fflush(stdout)
}

/// Flushes standard output and, when it is a terminal, makes sure that what is printed next starts a row: plugin
/// code that printed text without a newline after it (`print(_:terminator:)` with an empty terminator) left the
/// cursor after that text, and the shell's next line would run on from there, or the prompt's `\r` would draw over
/// it. Such text stays where it is, marked at its end with `%` (in reverse video with `palette`), as zsh marks a
/// command's output that did not end its line; a row that nothing was printed on is left as it is.
///
/// It needs no answer from the terminal: `%` and one space short of the width fill a row from its first column
/// exactly, the cursor staying on that row (a terminal that wraps at its margin waits for the next character to
/// do so, as every terminal `TERM` names but `dumb` does), and from any other column wrap onto the next row; `\r`
/// and erasing to the end of the row then leave the cursor at the start of an empty row either way. Nothing is
/// written to a terminal that does not say its width, or whose `TERM` is `dumb` or unset: the spaces would
/// stay there, or wrap where the terminal does not.
package func endUnfinishedRow(palette: Palette) {
    flushOutput()
    guard isatty(STDOUT_FILENO) == 1, let term = ProcessInfoLite.environment("TERM"), !term.isEmpty, term != "dumb"
    else { return }
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return }
    let text = palette.mark("%") + String(repeating: " ", count: Int(size.ws_col) - 1) + "\r\u{1B}[K"
    _ = DescriptorWriter.writeAll(Array(text.utf8), to: STDOUT_FILENO)
}
