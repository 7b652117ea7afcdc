/// The text of a line being edited and the cursor in it, counted in characters (so that a character of
/// several UTF-8 bytes, or a letter with a combining accent, is one step).
struct LineBuffer: Equatable, Sendable {
    private(set) var characters: [Character]
    /// The cursor, before `characters[cursor]`; `characters.count` at the end.
    private(set) var cursor: Int

    /// A buffer holding `text` with the cursor at its end.
    init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }
    /// The text before the cursor, which completion looks at.
    var textBeforeCursor: String { String(characters[..<cursor]) }

    /// Inserts `text` at the cursor and moves the cursor past it.
    mutating func insert(_ text: String) {
        replace(cursor..<cursor, with: text)
    }

    /// Replaces the characters in `range` with `text` and puts the cursor after it.
    mutating func replace(_ range: Range<Int>, with text: String) {
        // Joined as strings, so that a combining mark typed after a letter becomes part of it.
        let before = String(characters[..<range.lowerBound]) + text
        let after = String(characters[range.upperBound...])
        characters = Array(before + after)
        cursor = min(before.count, characters.count)
    }

    mutating func moveLeft() { cursor = max(0, cursor - 1) }
    mutating func moveRight() { cursor = min(characters.count, cursor + 1) }
    mutating func moveToStart() { cursor = 0 }
    mutating func moveToEnd() { cursor = characters.count }

    /// Moves to the start of the word before the cursor (words are separated by whitespace).
    mutating func moveWordLeft() { cursor = startOfWord(before: cursor) }

    /// Moves to the end of the word after the cursor.
    mutating func moveWordRight() {
        var index = cursor
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        while index < characters.count, !characters[index].isWhitespace { index += 1 }
        cursor = index
    }

    /// Backspace: deletes the character before the cursor. Returns whether there was one.
    @discardableResult
    mutating func deleteBackward() -> Bool {
        guard cursor > 0 else { return false }
        characters.remove(at: cursor - 1)
        cursor -= 1
        return true
    }

    /// Delete: deletes the character under the cursor. Returns whether there was one.
    @discardableResult
    mutating func deleteForward() -> Bool {
        guard cursor < characters.count else { return false }
        characters.remove(at: cursor)
        return true
    }

    /// Ctrl-K.
    mutating func deleteToEnd() {
        characters.removeSubrange(cursor...)
    }

    /// Ctrl-U.
    mutating func deleteToStart() {
        characters.removeSubrange(..<cursor)
        cursor = 0
    }

    /// Ctrl-W: deletes the whitespace before the cursor and the word before that.
    mutating func deleteWordBackward() {
        let start = startOfWord(before: cursor)
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    private func startOfWord(before position: Int) -> Int {
        var index = position
        while index > 0, characters[index - 1].isWhitespace { index -= 1 }
        while index > 0, !characters[index - 1].isWhitespace { index -= 1 }
        return index
    }
}
