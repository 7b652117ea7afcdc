import Dispatch
import FlowKit
import Glibc
import HostSupport

/// The prompt on a terminal: reads a line at a time with editing keys, history kept between runs, and Tab
/// completion; prints lines that arrive meanwhile above the line being typed.
///
/// Lines are read on a thread of the editor's own, so the main actor goes on (reloads, timers) while
/// someone types. Everything that touches the terminal, from that thread (keys) or any other
/// (``printAbove(_:)``), does so holding one lock over the editor's state, so a line printed mid-typing
/// clears the prompt row, prints, and draws the prompt and the partly typed line again with the cursor
/// where it was.
///
/// ```swift
/// if let editor = LineEditor.standard(warn: { print($0) }) {
///     defer { editor.close() }
///     while let line = await editor.readLine(prompt: "> ") { ... }
/// }
/// ```
package final class LineEditor: Sendable {
    private let terminal: TerminalMode
    private let historyFile: String?
    private let warn: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "flowhost.line-editor")
    private let state: PthreadMutex<State>

    private struct State: Sendable {
        var edit: LineEditState
        var display = LineDisplay()
        package var prompt = ""
        /// Whether a line is being read, so the prompt row is the editor's.
        var isReading = false
        var decoder = KeyDecoder()
        /// Keys that arrived after an Enter, for the next line.
        var typedAhead: [TerminalKey] = []
        package var completer: (any LineCompleter)?
        /// Whether a history problem was reported; one warning per run is enough.
        var warnedAboutHistory = false
        /// The line submitted last, as typed, while nothing of its command is printed yet
        /// (``releaseSubmittedLine()``): lines printed meanwhile go above it. `isDrawn`: whether it is on the
        /// row above the cursor, rather than erased for lines that another process prints next.
        var submitted: (buffer: LineBuffer, isDrawn: Bool)?
        /// Whether the line being read is held once submitted (``readLine(prompt:interruptible:holdsLine:)``).
        var holdsLine = false
        /// ``LineEditor/leaveHint``.
        var leaveHint: String?
    }

    /// An editor on standard input and output, or `nil` when either is not a terminal or `TERM` says the
    /// terminal cannot move its cursor (`dumb`); read lines plainly then.
    ///
    /// - Parameters:
    ///   - historyFile: Where the history is kept between runs; `nil` keeps it for this run only.
    ///   - warn: Receives a one-line warning when the history cannot be read or written (once per run).
    package static func standard(
        historyFile: String? = LineHistory.defaultPath(), warn: @escaping @Sendable (String) -> Void
    ) -> LineEditor? {
        guard isatty(STDOUT_FILENO) == 1, ProcessInfoLite.environment("TERM") != "dumb" else { return nil }
        return LineEditor(input: STDIN_FILENO, output: STDOUT_FILENO, historyFile: historyFile, warn: warn)
    }

    init?(input: Int32, output: Int32, historyFile: String?, warn: @escaping @Sendable (String) -> Void) {
        guard let terminal = TerminalMode(input: input, output: output) else { return nil }
        self.terminal = terminal
        self.warn = warn
        var history = LineHistory()
        var warned = false
        var kept = historyFile
        if let historyFile {
            do {
                history = try LineHistory.load(from: historyFile)
            } catch {
                warn("\(error.message); history is kept for this run only")
                warned = true
                // Not saved either: whatever is there (a FIFO, a link, an unreadable file) stays as it was.
                kept = nil
            }
        }
        self.historyFile = kept
        state = PthreadMutex(State(edit: LineEditState(history: history), warnedAboutHistory: warned))
    }

    /// A line printed under the `^C` of a Ctrl-C pressed on an empty line, which someone who presses it may
    /// mean to leave: how to (`(to leave, type quit or press Ctrl-D)`). `nil` prints none.
    package var leaveHint: String? {
        get { state.withLock { $0.leaveHint } }
        set { state.withLock { $0.leaveHint = newValue } }
    }

    /// What Tab completes from; set a fresh snapshot whenever what it offers may have changed.
    package var completer: (any LineCompleter)? {
        get { state.withLock { $0.completer } }
        set { state.withLock { $0.completer = newValue } }
    }

    /// The next line typed after `prompt`, or `nil` at Ctrl-D on an empty line or when the terminal is gone.
    ///
    /// - Parameters:
    ///   - interruptible: Whether the command on a line takes Ctrl-C itself while it runs: the line read then
    ///     arms ``KeyboardInterrupt`` before the terminal leaves raw mode (and sends SIGINT again), so that no
    ///     Ctrl-C falls between; the caller starts the catch.
    ///   - holdsLine: Whether lines printed above after the line is submitted go above it until
    ///     ``releaseSubmittedLine()``, for a caller with work of the prompt's to finish before the command's
    ///     output begins; else what is printed from then on is below it, the command's.
    package func readLine(
        prompt: String, interruptible: @escaping @Sendable (String) -> Bool = { _ in false }, holdsLine: Bool = false
    ) async -> String? {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(
                    returning: self.readLineBlocking(prompt: prompt, interruptible: interruptible, holdsLine: holdsLine)
                )
            }
        }
    }

    /// Prints `lines` above the line being typed, or above the line submitted last while its command has
    /// printed nothing (``releaseSubmittedLine()``); else just prints them.
    package func printAbove(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        state.withLock { state in
            var text = erase(&state)
            text += lines.map { $0 + "\r\n" }.joined()
            text += draw(&state)
            write(text)
        }
    }

    /// Runs `print`, which prints whole lines by other means (to standard error), above the line being typed
    /// (or the line submitted last, as ``printAbove(_:)`` does): the prompt's row is cleared first, and the
    /// prompt and the line are drawn again after, unless not `redrawing`: then they stay away until
    /// ``redraw()``, for lines that another process prints next.
    package func printAbove(redrawing: Bool = true, by print: () -> Void) {
        state.withLock { state in
            write(erase(&state))
            print()
            if redrawing { write(draw(&state)) }
        }
    }

    /// Draws the prompt and the line being typed again, on the cursor's row, when a line is being read; the
    /// line submitted last, when ``printAbove(redrawing:by:)`` left it away.
    package func redraw() {
        state.withLock { state in write(draw(&state)) }
    }

    /// What is printed from now on is the command's, under the line submitted last: lines printed above go
    /// below it. Until then they go above it, as they went above the prompt: the shell calls this once the
    /// work a command first waits for (a reload's services still stopping and starting) is done, so that the
    /// lines of that work, which came while the person was at the prompt, do not read as the command's.
    package func releaseSubmittedLine() {
        state.withLock { state in
            write(draw(&state))
            state.submitted = nil
        }
    }

    /// The bytes that erase the line being typed, or the line submitted last, and leave the cursor at the start
    /// of its row.
    private func erase(_ state: inout State) -> String {
        if state.isReading { return state.display.erase(width: terminal.columns()) }
        guard state.submitted?.isDrawn == true else { return "" }
        state.submitted?.isDrawn = false
        // Up from the row below it, where the Enter left the cursor, to the cursor's row in the line.
        return "\u{1B}[A" + state.display.erase(width: terminal.columns())
    }

    /// The bytes that draw the line being typed again, or the line submitted last, erased, with the row
    /// below it, where its command's lines begin.
    private func draw(_ state: inout State) -> String {
        if state.isReading { return render(&state) }
        guard let submitted = state.submitted, !submitted.isDrawn else { return "" }
        state.submitted?.isDrawn = true
        return state.display.renderWhole(prompt: state.prompt, buffer: submitted.buffer, width: terminal.columns())
            + "\r\n"
    }

    /// Gives the terminal back its modes; call before the program ends.
    package func close() {
        state.withLock { $0.isReading = false }
        terminal.restore()
    }

    // MARK: - Reading

    /// What a key came to, for the reading loop.
    private enum Outcome {
        case editing
        case line(String, history: LineHistory?)
        case end
        case suspend
    }

    /// ``readLine(prompt:interruptible:holdsLine:)`` on the calling thread, which it blocks until the line is
    /// done.
    func readLineBlocking(
        prompt: String, interruptible: (String) -> Bool = { _ in false }, holdsLine: Bool = false
    ) -> String? {
        terminal.drainWake()
        state.withLock { state in
            write(draw(&state))
            state.submitted = nil
            state.holdsLine = holdsLine
            state.prompt = prompt
            state.isReading = true
            state.display.reset()
            state.edit.startLine()
            terminal.enterRaw()
            write(render(&state))
        }
        while true {
            var keys = state.withLock { state in
                defer { state.typedAhead = [] }
                return state.typedAhead
            }
            if keys.isEmpty {
                guard let arrived = nextKeys() else {
                    state.withLock { state in
                        let line = state.edit.buffer
                        endLine(&state, line: line)
                    }
                    return nil
                }
                keys = arrived
            }
            for (index, key) in keys.enumerated() {
                let completion = key == .tab ? completion() : nil
                let outcome = state.withLock { state in
                    let outcome = apply(key, completion: completion, interruptible: interruptible, to: &state)
                    if case .editing = outcome { return outcome }
                    if case .suspend = outcome { return outcome }
                    state.typedAhead = Array(keys[(index + 1)...])
                    if case .line(let line, _) = outcome, state.typedAhead.contains(.interrupt), interruptible(line) {
                        // Ctrl-C read with the Enter (pasted, or typed that fast): what the terminal does with
                        // one pressed a moment later, SIGINT to its foreground process group (this process,
                        // armed, and a supervised host), dropping what was typed ahead.
                        state.typedAhead = []
                        kill(0, SIGINT)
                    }
                    return outcome
                }
                switch outcome {
                case .editing: continue
                case .suspend:
                    // To the process, not this thread: Dispatch's threads block signals. TerminalMode's
                    // handler stops the program and, once it continues, wakes this loop to draw the line.
                    kill(getpid(), SIGTSTP)
                case .line(let line, let history):
                    if let history { save(history) }
                    return line
                case .end: return nil
                }
            }
        }
    }

    /// Waits for input; `nil` when the terminal is gone. Redraws when a signal wakes it.
    private func nextKeys() -> [TerminalKey]? {
        var descriptors = [
            pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0),
            pollfd(fd: terminal.wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            // An Escape alone might be the start of a sequence: wait briefly for the rest, then take it alone.
            let waiting = state.withLock { $0.decoder.isWaiting }
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = poll(&descriptors, 2, waiting ? 50 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if ready == 0 { return state.withLock { $0.decoder.flush() } }
            if descriptors[1].revents != 0 {
                let stopped = terminal.drainWake()
                state.withLock { state in
                    if stopped { state.display.leave() }
                    write(render(&state))
                }
            }
            guard descriptors[0].revents != 0 else { continue }
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = bytes.withUnsafeMutableBytes { read(terminal.input, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return nil }
            return state.withLock { $0.decoder.decode(bytes[..<count]) }
        }
    }

    /// What the completer offers for the line as typed so far; `nil` without a completer.
    ///
    /// Asked without holding the lock: a file name's completion reads a directory, and on a filesystem that
    /// hangs, holding it would stop every line printed above the prompt (``printAbove(_:)``), and with them
    /// the thread printing them. Only this thread edits the line, so it is the same line once locked again.
    private func completion() -> LineCompletion? {
        let (completer, text) = state.withLock { ($0.completer, $0.edit.textBeforeCursor) }
        return completer?.completions(before: text)
    }

    /// Applies `key` (for Tab, with the completer's answer) and carries out its effect on the terminal; a line
    /// submitted that is `interruptible` arms ``KeyboardInterrupt`` before raw mode ends.
    private func apply(
        _ key: TerminalKey, completion: LineCompletion?, interruptible: (String) -> Bool, to state: inout State
    ) -> Outcome {
        var typed = state.edit.buffer
        switch state.edit.handle(key, completion: completion) {
        case .redraw: write(render(&state))
        case .bell: write("\u{07}")
        case .submit(let line):
            let remembered = state.edit.remember(line)
            if interruptible(line) { KeyboardInterrupt.arm() }
            endLine(&state, line: typed)
            if state.holdsLine { state.submitted = (typed, isDrawn: true) }
            return .line(line, history: remembered ? state.edit.history : nil)
        case .endOfFile:
            endLine(&state, line: typed)
            return .end
        case .cancel:
            // The abandoned line stays on screen, its end in view, marked with ^C after it: drawn a column
            // narrower, so that the two columns of ^C fit on its row (the drawing keeps one free).
            typed.moveToEnd()
            let shown = state.display.render(
                prompt: state.prompt, buffer: typed, width: max(1, terminal.columns() - 1))
            state.display.reset()
            let hint = typed.isEmpty ? state.leaveHint.map { $0 + "\r\n" } ?? "" : ""
            write(shown + "^C\r\n" + hint + render(&state))
        case .list(let words):
            // Below the line as typed, like a shell; then the line again.
            state.display.leave()
            write("\r\n" + Self.columns(words, width: terminal.columns()).map { $0 + "\r\n" }.joined() + render(&state))
        case .suspend:
            return .suspend
        case .clearScreen:
            state.display.leave()
            write("\u{1B}[H\u{1B}[2J" + render(&state))
        }
        return .editing
    }

    /// Sets the terminal's modes for the command, quiet, so that keys typed while it runs wait for the next
    /// line unechoed; leaves the whole of `line` on screen, unscrolled, and moves below it.
    private func endLine(_ state: inout State, line: LineBuffer) {
        // Quiet first: once the line ends on screen, Ctrl-C is a signal again (``KeyboardInterrupt``).
        terminal.enterQuiet()
        write(
            state.display.renderWhole(prompt: state.prompt, buffer: line, width: terminal.columns()) + "\r\n")
        state.isReading = false
    }

    private func render(_ state: inout State) -> String {
        state.display.render(prompt: state.prompt, buffer: state.edit.buffer, width: terminal.columns())
    }

    private func save(_ history: LineHistory) {
        guard let historyFile else { return }
        do {
            try history.save(to: historyFile)
        } catch {
            let first = state.withLock { state in
                defer { state.warnedAboutHistory = true }
                return !state.warnedAboutHistory
            }
            if first { warn("\(error.message); history is kept for this run only") }
        }
    }

    /// `words` in columns that fit `width`, as rows of text.
    static func columns(_ words: [String], width: Int) -> [String] {
        let cell = (words.map(LineDisplay.columns(of:)).max() ?? 0) + 2
        let perRow = max(1, (width - 1) / cell)
        return stride(from: 0, to: words.count, by: perRow).map { start in
            let row = words[start..<min(start + perRow, words.count)]
            return row.enumerated().map { offset, word in
                offset == row.count - 1
                    ? word : word + String(repeating: " ", count: cell - LineDisplay.columns(of: word))
            }.joined()
        }
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        DescriptorWriter.writeAll(Array(text.utf8), to: terminal.output)
    }
}
