/// A key pressed at a terminal in raw mode, or a run of typed (or pasted) text.
enum TerminalKey: Equatable, Sendable {
    /// Printable text: one character typed, or several pasted or typed ahead.
    case text(String)
    /// Return or Enter (or Ctrl-J, Ctrl-M).
    case enter
    case tab
    /// Backspace or Ctrl-H: delete before the cursor.
    case backspace
    /// Delete: delete under the cursor.
    case delete
    /// Left arrow or Ctrl-B.
    case left
    /// Right arrow or Ctrl-F.
    case right
    /// Home or Ctrl-A.
    case home
    /// End or Ctrl-E.
    case end
    /// Up arrow or Ctrl-P: the previous history entry.
    case up
    /// Down arrow or Ctrl-N: the next history entry.
    case down
    /// Alt-B or Ctrl-Left.
    case wordLeft
    /// Alt-F or Ctrl-Right.
    case wordRight
    /// Ctrl-K: delete to the end of the line.
    case deleteToEnd
    /// Ctrl-U: delete to the start of the line.
    case deleteToStart
    /// Ctrl-W or Alt-Backspace: delete the word before the cursor.
    case deleteWordBackward
    /// Ctrl-C.
    case interrupt
    /// Ctrl-D.
    case endOfFile
    /// Ctrl-Z.
    case suspend
    /// Ctrl-L.
    case clearScreen
}
