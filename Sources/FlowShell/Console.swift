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

/// Prints `message` to standard error, its first line in red: an error, then any usage text plain.
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

/// Prints `document` to standard output: the one thing a `--json` command prints there.
package func printJSON(_ document: JSONValue) {
    print(document.prettyDescription)
}

private func writeError(_ message: String, paint: (String) -> String) {
    flushOutput()  // Keep stdout and stderr in order when both go to one terminal or file.
    let message = PrintableText.sanitized(message, keepingNewlines: true)
    let newline = message.firstIndex(of: "\n") ?? message.endIndex
    let line = paint(String(message[..<newline])) + message[newline...] + "\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
