import FlowKit
import Glibc
import HostSupport

/// Where `flowhost` writes and in which colours: one palette per stream, since either may be a terminal
/// while the other is a pipe or a file. Set once, from `--color`, before a command runs.
@MainActor
package enum Console {
    /// Colours for standard output.
    package static var output = Palette.plain
    /// Colours for standard error.
    package static var errors = Palette.plain

    /// Chooses both palettes for `mode`, from whether each stream is a terminal, `NO_COLOR` and `TERM`.
    package static func configure(_ mode: ColorMode) {
        let noColor = ProcessInfoLite.environment("NO_COLOR")
        let term = ProcessInfoLite.environment("TERM")
        output = Palette(isEnabled: mode.colors(isTerminal: isatty(STDOUT_FILENO) == 1, noColor: noColor, term: term))
        errors = Palette(isEnabled: mode.colors(isTerminal: isatty(STDERR_FILENO) == 1, noColor: noColor, term: term))
    }
}

/// Prints `message` to standard error as one line in red: an error.
@MainActor
package func printError(_ message: String) {
    writeError(message, paint: Console.errors.error)
}

/// Prints `message` to standard error in yellow: something went wrong, but the command goes on.
@MainActor
package func printWarning(_ message: String) {
    writeError(message, paint: Console.errors.warning)
}

/// Prints `message` to standard error in `palette`'s yellow, from any thread (the prompt's reader warns).
package func printWarning(_ message: String, palette: Palette) {
    writeError(message, paint: palette.warning)
}

/// Prints `message` to standard error in bold red: the expectation a script stopped at.
@MainActor
package func printFailure(_ message: String) {
    writeError(message, paint: Console.errors.failure)
}

/// Prints `message` to standard error as it is: a note on the error or failure printed before it.
@MainActor
package func printNote(_ message: String) {
    writeError(message) { $0 }
}

/// Prints `usage`, the program's own text that follows an error about a command line, to standard error as it
/// is, lines and all.
package func printUsage(_ usage: String) {
    flushOutput()
    StatusLine.erase()
    _ = (usage + "\n").withCString { write(STDERR_FILENO, $0, strlen($0)) }
}

/// Prints `document` to standard output: the one thing a `--json` command prints there.
package func printJSON(_ document: JSONValue) {
    print(document.prettyDescription)
}

/// Writes `message` to standard error as one line, painted: its control characters, newlines among them, as
/// `?` (``PrintableText/sanitized(_:keepingNewlines:)``), since a message quotes paths and names others chose,
/// and a newline in one would start a line of their own, such as a forged `flowhost: ...`.
private func writeError(_ message: String, paint: (String) -> String) {
    flushOutput()  // Keep stdout and stderr in order when both go to one terminal or file.
    StatusLine.erase()
    let line = paint(PrintableText.sanitized(message)) + "\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
