import Dispatch
import FlowHost
import Glibc
import HostSupport
import LineEditing

/// Where the supervisor reads commands: a script's lines, a prompt that edits lines on a terminal, or
/// standard input's lines; and where it prints what the host says between commands.
@MainActor
package final class CommandInput {
    private let editor: LineEditor?
    private var lines: AsyncThrowingStream<String, any Error>.Iterator?
    private let prompts: Bool
    private let source: String
    /// Whether ``next()`` waits for a line typed at a prompt.
    private var awaitsTypedLine = false
    /// Whether the cursor is just after the prompt that ``next()`` printed itself (no line editor): nothing
    /// has been printed since.
    private var cursorAfterPrompt = false
    /// Whether a line was printed at the prompt and the prompt left away (``printAbove(error:warning:thenPrompt:)``).
    private var promptAway = false
    /// Set when the input ended on a line that could not be read (one too long): the run's exit code.
    package private(set) var failure: ExitCode?
    /// Whether a person types the commands at a terminal, rather than a script or a pipe feeding them.
    package let isInteractive: Bool
    /// Prints lines of events that happened between commands: above the line being typed, on a prompt.
    /// Safe to call from any thread.
    package let printAbove: @Sendable ([String]) -> Void
    /// Runs a writing of whole lines to standard error (the host's, relayed) above the line being typed at a
    /// prompt, or the line typed last until its command's output begins, which are drawn again after: written
    /// where the cursor was, such lines went into the prompt's line, or under a line held, which the next lines
    /// printed above then drew a second time. Safe to call from any thread.
    package let printErrorsAbove: @Sendable (() -> Void) -> Void

    /// Input from `script`, else a terminal's prompt, else standard input.
    package init(script: (name: String, lines: [String])?) {
        let interactive = script == nil && isatty(STDIN_FILENO) == 1
        isInteractive = interactive
        let editor = interactive ? Self.terminalEditor() : nil
        self.editor = editor
        prompts = interactive && editor == nil
        source = script?.name ?? "<stdin>"
        if editor == nil {
            lines = (script.map { Self.lines(of: $0.lines) } ?? Self.standardInputLines())
                .makeAsyncIterator()
        }
        printAbove = { lines in
            let indented = Self.above(lines)
            if let editor {
                editor.printAbove(indented)
            } else {
                for line in indented { print(line) }
                flushOutput()
            }
        }
        printErrorsAbove = { print in
            if let editor { editor.printAbove(by: print) } else { print() }
        }
    }

    /// `lines` as they are printed above the line being typed: indented, without their control characters,
    /// since they name what plugins made (modules, errors), and from a supervised host come from a process
    /// whose plugins' code can write anything on the link.
    package nonisolated static func above(_ lines: [String]) -> [String] {
        lines.map { "  " + PrintableText.sanitized($0) }
    }

    /// Prints the supervisor's own `message` to standard error (a warning in yellow, else an error in red),
    /// above the line being typed at a prompt. The prompt is drawn again after it, unless not `thenPrompt`:
    /// then it stays away until ``drawPrompt()``, since a restarted host prints what it restored first. While
    /// no line is read, it is about the command sent last (its crash, its hang): under that command's line.
    package func printAbove(error message: String, warning: Bool = false, thenPrompt: Bool = true) {
        let print = { warning ? printWarning(message) : printError(message) }
        if !awaitsTypedLine { releaseSubmittedLine() }
        promptAway = awaitsTypedLine
        if let editor {
            editor.printAbove(redrawing: false, by: print)
        } else {
            if cursorAfterPrompt {
                Swift.print("")  // Below the prompt, which a terminal without cursor movement cannot clear.
                cursorAfterPrompt = false
            }
            print()
        }
        if thenPrompt { drawPrompt() }
    }

    /// Draws the prompt again, with what was typed after it, when ``printAbove(error:warning:thenPrompt:)``
    /// left it away while a line is being read.
    package func drawPrompt() {
        guard promptAway else { return }
        promptAway = false
        guard awaitsTypedLine else { return }
        if let editor {
            editor.redraw()
        } else {
            Swift.print(Self.prompt, terminator: "")
            flushOutput()
            cursorAfterPrompt = true
        }
    }

    /// What is printed from now on goes under the line read last, as the output of its command: until then,
    /// ``printAbove`` prints above it, as at the prompt (``LineEditor/releaseSubmittedLine()``).
    package func releaseSubmittedLine() {
        editor?.releaseSubmittedLine()
    }

    /// What Tab completes from, as the host last described it.
    package var completer: HostShell.Completer? {
        didSet { editor?.completer = completer }
    }

    /// The next command line; `nil` at the end of the input, or after a line that cannot be read (printed,
    /// and kept in ``failure``).
    package func next() async -> String? {
        defer { (awaitsTypedLine, cursorAfterPrompt, promptAway) = (false, false, false) }
        if let editor {
            awaitsTypedLine = true
            // A `wait` typed takes Ctrl-C from the Enter on: the supervisor starts the catch as it sends it.
            // Held, for the lines the host sends until its command's output begins (``releaseSubmittedLine()``).
            return await editor.readLine(prompt: Self.prompt, interruptible: HostShell.isWait, holdsLine: true)
        }
        if prompts {
            print(Self.prompt, terminator: "")
            flushOutput()
            (awaitsTypedLine, cursorAfterPrompt) = (true, true)
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
    package func close() { editor?.close() }

    /// The prompt on a terminal.
    package static let prompt = "flowhost> "
    /// What the prompt says under a Ctrl-C on an empty line (``LineEditor/leaveHint``).
    package static let leaveHint = "(to leave, type quit or press Ctrl-D)"

    /// The prompt's line editor, the host's or a supervisor's: `nil` where standard input and output are not a
    /// terminal that can edit lines. It warns on standard error, and says how to leave under a Ctrl-C.
    static func terminalEditor() -> LineEditor? {
        let warnings = Console.errors
        let editor = LineEditor.standard(warn: { printWarning("flowhost: warning: \($0)", palette: warnings) })
        editor?.leaveHint = leaveHint
        return editor
    }

    package static func lines(of script: [String]) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            for line in script { continuation.yield(line) }
            continuation.finish()
        }
    }

    /// Standard input (or a supervisor's commands), line by line, each read when it is asked for (so that a fast
    /// writer waits for the host instead of filling memory), off the main actor so that timers and reloads go on
    /// meanwhile.
    ///
    /// A line longer than ``LineReader/defaultMaxLineLength`` ends the stream with ``LineReader/Failure``.
    /// From a terminal (read plainly when `TERM` is `dumb`), escape sequences are dropped
    /// (``EscapeSequence/stripped(from:)``).
    ///
    /// - Parameters:
    ///   - descriptor: Standard input, or the descriptor a supervisor sends its commands on.
    ///   - numbered: Whether the lines come from a supervisor, each after its number, a token and tabs
    ///     (``SupervisorLink/command(in:)``): those may be that much longer, the supervisor having checked the
    ///     line typed.
    package static func standardInputLines(from descriptor: Int32 = STDIN_FILENO, numbered: Bool = false)
        -> AsyncThrowingStream<String, any Error>
    {
        let reader = LineReader(
            descriptor: descriptor, maxLineLength: LineReader.defaultMaxLineLength + (numbered ? 64 : 0))
        // Typed at a terminal without the line editor (`TERM=dumb`): the keys it does not edit with, such as
        // the arrows, arrive as escape sequences, which are dropped rather than read as part of the command.
        let typed = isatty(descriptor) == 1
        return AsyncThrowingStream {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(
                        with: Result { () throws(LineReader.Failure) in
                            try reader.next().map { typed ? EscapeSequence.stripped(from: $0) : $0 }
                        })
                }
            }
        }
    }
}
