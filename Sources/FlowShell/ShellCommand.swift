import HostSupport

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

    /// The forms the usage lists, `|` between them: `back`, `dismiss` and `tab N` of `back | dismiss | tab N`.
    var alternatives: [String] {
        usage.split(separator: "|").map { $0.trimmingWhitespace() }
    }

    /// The lines of the help, none wider than `width`: the usage, then the summary (with `example` after it
    /// in parentheses) from column 37, on the usage's line when the usage ends before that column (or leaves
    /// room after it), else on the lines after; each wrapped between words, a usage before a `|`.
    func helpLines(width: Int, example: String? = nil) -> [String] {
        let column = 36
        let indent = String(repeating: " ", count: column)
        let summary = [summary, example.map { "(\($0))" } ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        var lines = Self.wrap(usage, width: width, continuation: "  ", breakingBefore: "|")
        guard !summary.isEmpty else { return lines }
        let last = lines.removeLast()
        if last.count < column - 1 {
            let summaryLines = Self.wrap(summary, width: width - column)
            return lines + [last.padding(to: column) + summaryLines[0]] + summaryLines.dropFirst().map { indent + $0 }
        }
        if last.count + 3 + summary.count <= width { return lines + [last + "   " + summary] }
        return lines + [last] + Self.wrap(summary, width: width - column).map { indent + $0 }
    }

    /// `text` in lines no wider than `width` (a word wider than that alone on its line), broken between
    /// words, before the last `marker` word that leaves something on the line when there is one; lines after
    /// the first start with `continuation`.
    private static func wrap(
        _ text: String, width: Int, continuation: String = "", breakingBefore marker: String? = nil
    ) -> [String] {
        var lines: [String] = []
        var line: [String] = []
        var prefix = ""
        for word in text.split(separator: " ").map(String.init) {
            guard !line.isEmpty, (prefix + (line + [word]).joined(separator: " ")).count > width else {
                line.append(word)
                continue
            }
            let at = marker.flatMap { line.lastIndex(of: $0) }.flatMap { $0 > 0 ? $0 : nil } ?? line.count
            lines.append(prefix + line[..<at].joined(separator: " "))
            line = Array(line[at...]) + [word]
            prefix = continuation
        }
        lines.append(prefix + line.joined(separator: " "))
        return lines
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
