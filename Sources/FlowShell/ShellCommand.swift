/// One line of the shell's help: a form of a command and what it does. The table of them
/// (``HostShell/commands``) is the one source of the help text, of the command words Tab offers and of the
/// "did you mean" for a mistyped command.
package struct ShellCommand: Sendable, Equatable {
    /// How it is written: words, `UPPERCASE` placeholders, `[optional]` parts, `|` between alternatives.
    package var usage: String
    /// What it does.
    package var summary: String
    /// The commands the line shows: the usage's first word, and any others it lists (`back | dismiss |
    /// tab N` shows `back`, `dismiss` and `tab`).
    package var words: [String]

    package init(_ usage: String, _ summary: String, also others: [String] = []) {
        self.usage = usage
        self.summary = summary
        words = usage.split(separator: " ").prefix(1).map(String.init) + others
    }

    /// The line of the help: the usage, then the summary from column 37, or on the next line when the usage
    /// reaches that far.
    var helpLines: [String] {
        let column = 36
        if summary.isEmpty { return [usage] }
        if usage.count < column - 1 { return [usage.padding(to: column) + summary] }
        if usage.count + 3 + summary.count <= 110 { return [usage + "   " + summary] }
        return [usage, String(repeating: " ", count: column) + summary]
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
