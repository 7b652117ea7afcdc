/// What each key does to the line being edited: the editing itself, history and completion, without a
/// terminal. ``LineEditor`` feeds it keys and carries out the ``Effect`` each one asks for.
struct LineEditState: Sendable {
    /// What the terminal should do after a key.
    enum Effect: Equatable, Sendable {
        /// Draw the line again (it or its cursor changed).
        case redraw
        /// Nothing to do for this key here (no history, no completion, nothing to delete): ring the bell.
        case bell
        /// Enter: the line is done.
        case submit(String)
        /// Ctrl-D on an empty line.
        case endOfFile
        /// Ctrl-C: the line was abandoned; show that, and start a new one.
        case cancel
        /// The second Tab when several words complete: list them above the line.
        case list([String])
        /// Ctrl-Z: stop the program as a terminal would.
        case suspend
        /// Ctrl-L: clear the screen and draw the line at the top.
        case clearScreen
    }

    private(set) var buffer = LineBuffer()
    private(set) var history: LineHistory
    /// The history entry shown, while Up and Down browse; `nil` while editing a new line.
    private var browsing: Int?
    /// The new line as it was when browsing started, for Down past the newest entry.
    private var draft = ""
    private var lastKeyWasTab = false

    init(history: LineHistory = LineHistory()) {
        self.history = history
    }

    /// What Tab completes the end of: the line up to the cursor.
    var textBeforeCursor: String { buffer.textBeforeCursor }

    /// Starts a new, empty line.
    mutating func startLine() {
        buffer = LineBuffer()
        browsing = nil
        draft = ""
        lastKeyWasTab = false
    }

    /// Adds a submitted line to the history. Returns whether it was added.
    mutating func remember(_ line: String) -> Bool {
        history.add(line)
    }

    /// Applies `key` to the line. For Tab, `completion` is the completer's answer for ``textBeforeCursor``,
    /// asked for beforehand (`nil` when there is no completer): completing a file name reads a directory,
    /// which should not happen while the terminal's other writers wait.
    mutating func handle(_ key: TerminalKey, completion: LineCompletion? = nil) -> Effect {
        let wasTab = lastKeyWasTab
        lastKeyWasTab = key == .tab
        switch key {
        case .text(let text):
            buffer.insert(text)
        case .enter:
            let line = buffer.text
            startLine()
            return .submit(line)
        case .tab:
            return complete(with: completion, listing: wasTab)
        case .backspace:
            if !buffer.deleteBackward() { return .bell }
        case .delete:
            if !buffer.deleteForward() { return .bell }
        case .endOfFile:
            if buffer.isEmpty { return .endOfFile }
            if !buffer.deleteForward() { return .bell }
        case .left: buffer.moveLeft()
        case .right: buffer.moveRight()
        case .home: buffer.moveToStart()
        case .end: buffer.moveToEnd()
        case .wordLeft: buffer.moveWordLeft()
        case .wordRight: buffer.moveWordRight()
        case .deleteToEnd: buffer.deleteToEnd()
        case .deleteToStart: buffer.deleteToStart()
        case .deleteWordBackward: buffer.deleteWordBackward()
        case .up: return recall(by: -1)
        case .down: return recall(by: 1)
        case .interrupt:
            startLine()
            return .cancel
        case .suspend: return .suspend
        case .clearScreen: return .clearScreen
        }
        return .redraw
    }

    /// Up (`step` -1) and Down (+1) through the history; Down past the newest entry returns to the draft.
    private mutating func recall(by step: Int) -> Effect {
        let entries = history.entries
        let current = browsing ?? entries.count
        let next = current + step
        guard next >= 0, next <= entries.count, next != current else { return .bell }
        if browsing == nil { draft = buffer.text }
        browsing = next == entries.count ? nil : next
        buffer = LineBuffer(browsing.map { entries[$0] } ?? draft)
        return .redraw
    }

    /// Tab: one candidate completes the word (and adds a space, unless it ends in a slash: a directory, or a
    /// path to go on typing); several complete their common prefix, and when that adds nothing, a second Tab
    /// lists them.
    private mutating func complete(with completion: LineCompletion?, listing: Bool) -> Effect {
        guard let completion else { return .bell }
        let word = buffer.cursor - completion.wordStart
        switch completion.candidates.count {
        case 0:
            return .bell
        case 1:
            let candidate = completion.candidates[0]
            let completed = candidate.hasSuffix("/") ? candidate : candidate + " "
            buffer.replace(completion.wordStart..<buffer.cursor, with: completed)
            return .redraw
        default:
            let prefix = completion.commonPrefix
            if prefix.count > word {
                buffer.replace(completion.wordStart..<buffer.cursor, with: prefix)
                return .redraw
            }
            return listing ? .list(completion.candidates) : .bell
        }
    }
}
