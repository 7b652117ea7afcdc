import FlowShell
import Glibc
import LineEditing

/// Where the supervisor reads commands: a script's lines, a prompt that edits lines on a terminal, or
/// standard input's lines; and where it prints what the host says between commands.
@MainActor
final class CommandInput {
    private let editor: LineEditor?
    private var lines: AsyncThrowingStream<String, any Error>.Iterator?
    private let prompts: Bool
    private let source: String
    /// Set when the input ended on a line that could not be read (one too long): the run's exit code.
    private(set) var failure: ExitCode?
    /// Whether a person types the commands at a terminal, rather than a script or a pipe feeding them.
    let isInteractive: Bool
    /// Prints lines of events that happened between commands: above the line being typed, on a prompt.
    /// Safe to call from any thread.
    let printAbove: @Sendable ([String]) -> Void

    /// Input from `script`, else a terminal's prompt, else standard input.
    init(script: (name: String, lines: [String])?) {
        let interactive = script == nil && isatty(STDIN_FILENO) == 1
        isInteractive = interactive
        let warnings = Console.errors
        let editor =
            interactive
            ? LineEditor.standard(warn: { printWarning("flowhost: warning: \($0)", palette: warnings) }) : nil
        self.editor = editor
        prompts = interactive && editor == nil
        source = script?.name ?? "<stdin>"
        if editor == nil {
            lines = (script.map { RunCommand.lines(of: $0.lines) } ?? RunCommand.standardInputLines())
                .makeAsyncIterator()
        }
        printAbove = { lines in
            let indented = lines.map { "  " + $0 }
            if let editor {
                editor.printAbove(indented)
            } else {
                for line in indented { print(line) }
                flushOutput()
            }
        }
    }

    /// What Tab completes from, as the host last described it.
    var completer: HostShell.Completer? {
        didSet { editor?.completer = completer }
    }

    /// The next command line; `nil` at the end of the input, or after a line that cannot be read (printed,
    /// and kept in ``failure``).
    func next() async -> String? {
        if let editor { return await editor.readLine(prompt: RunCommand.prompt) }
        if prompts {
            print(RunCommand.prompt, terminator: "")
            flushOutput()
        }
        // The iterator is a handle on the stream: a copy reads the same lines.
        guard var iterator = lines else { return nil }
        do {
            let line = try await iterator.next(isolation: #isolation)
            lines = iterator
            return line
        } catch {
            printError("\(source): \(error)")
            lines = nil
            failure = .invalidInput
            return nil
        }
    }

    /// Gives the terminal back its modes.
    func close() { editor?.close() }
}
