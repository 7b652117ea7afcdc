/// What a terminal shows after a program's output: its rows of text, as a person reads them.
///
/// It plays what the line editor and the shell write: text, which wraps at the width; `\r`, `\n`, backspace;
/// and the escape sequences `ESC[K` and `ESC[J` (erase to the end of the row, of the screen), `ESC[nA`,
/// `ESC[nC` and `ESC[nD` (cursor up, right and left). Colours (`ESC[...m`) and the bell change no text; other
/// sequences (Ctrl-L's clearing) are not played. Rows that scroll off the top are kept: ``rows`` is the whole
/// history. ``resize(to:)`` re-wraps it as a terminal made narrower or wider does.
///
/// A character takes the columns ``widths`` gives it (tmux's by default): a wide one fills its first cell and
/// ``continuation`` the others, moves whole to the next row when it does not fit at the end of one, and
/// goes whole when anything is written over part of it, as in tmux.
struct TerminalScreen {
    private var cells: [[Character]] = [[]]
    /// Whether each row goes on in the next, wrapped there because it was full.
    private var wraps: [Bool] = [false]
    private var row = 0
    private var column = 0
    private(set) var width: Int
    let widths: Widths
    /// What fills the cells of a wide character after its first.
    private static let continuation: Character = "\u{0}"

    /// The screen after `output` on a terminal `width` columns wide that counts columns as `widths` says.
    init(_ output: [UInt8], width: Int = 80, widths: Widths = .tmux) {
        self.width = width
        self.widths = widths
        play(output)
    }

    /// The text on the cursor's row before the cursor.
    var beforeCursor: String {
        String(cells[row].prefix(column).filter { $0 != Self.continuation })
    }

    /// Plays `output` after what the screen shows.
    mutating func play(_ output: [UInt8]) {
        var characters = Array(String(decoding: output, as: UTF8.self))[...]
        while let character = characters.popFirst() {
            switch character {
            case "\r": column = 0
            case "\n": moveDown()
            case "\u{08}": column = max(0, column - 1)
            case "\u{07}": break
            case "\u{1B}": escape(&characters)
            case "\r\n":  // One Character in Swift.
                column = 0
                moveDown()
            default: put(character)
            }
        }
    }

    /// The rows, without the spaces after their text, and without empty rows at the end.
    var rows: [String] {
        var rows = cells.map { String($0.filter { $0 != Self.continuation }.reversed().drop { $0 == " " }.reversed()) }
        while rows.last == "" { rows.removeLast() }
        return rows
    }

    /// The terminal made `width` columns wide, re-wrapping its rows as tmux does (VTE, kitty and iTerm2
    /// too): each run of rows wrapped into the next is one line, split again at the new width. The cursor
    /// goes with the character it is on; past a line's text it stays on the line's last row.
    mutating func resize(to width: Int) {
        var lines: [[Character]] = [[]]
        var cursorLine = 0
        var cursorOffset = 0
        for (index, cells) in cells.enumerated() {
            if index == row {
                cursorLine = lines.count - 1
                cursorOffset = lines[lines.count - 1].count + column
            }
            // A row's text continues in the next only up to the width: what wraps starts a row of its own.
            lines[lines.count - 1] += cells
            if !wraps[index], index < self.cells.count - 1 { lines.append([]) }
        }
        self.width = width
        cells = []
        wraps = []
        for (index, line) in lines.enumerated() {
            // A wide character that does not fit at the end of a row starts the next.
            var rows: [[Character]] = [[]]
            var cursor: (row: Int, column: Int)?
            var start = 0
            while start < line.count {
                var end = start + 1
                while end < line.count, line[end] == Self.continuation { end += 1 }
                if rows[rows.count - 1].count + end - start > width { rows.append([]) }
                if (start..<end).contains(cursorOffset) { cursor = (rows.count - 1, rows[rows.count - 1].count) }
                rows[rows.count - 1] += line[start..<end]
                start = end
            }
            if index == cursorLine {
                let (cursorRow, cursorColumn) =
                    cursor ?? (rows.count - 1, rows[rows.count - 1].count + cursorOffset - line.count)
                row = cells.count + cursorRow
                column = min(cursorColumn, width - 1)
            }
            cells += rows
            wraps += rows.indices.map { $0 < rows.count - 1 }
        }
    }

    private mutating func put(_ character: Character) {
        let columns = widths.columns(of: character)
        guard columns > 0 else { return }  // drawn in the cell before it, which it changes no text of here
        if column + columns > width {
            column = 0
            wraps[row] = true
            moveDown()
        }
        while cells[row].count < column + columns { cells[row].append(" ") }
        clearCharacters(at: column..<column + columns)
        cells[row].replaceSubrange(
            column..<column + columns,
            with: [character] + Array(repeating: Self.continuation, count: columns - 1))
        column += columns
    }

    /// Blanks every cell of the characters that have a cell in `range` on the cursor's row.
    private mutating func clearCharacters(at range: Range<Int>) {
        var first = range.lowerBound
        while first > 0, first < cells[row].count, cells[row][first] == Self.continuation { first -= 1 }
        var end = range.upperBound
        while end < cells[row].count, cells[row][end] == Self.continuation { end += 1 }
        for index in first..<min(end, cells[row].count) { cells[row][index] = " " }
    }

    /// Erases the cursor's row from the cursor on, with the whole of a wide character the cursor is within.
    private mutating func eraseRow() {
        guard column < cells[row].count else { return }
        clearCharacters(at: column..<column + 1)
        cells[row].removeSubrange(column...)
    }

    private mutating func moveDown() {
        row += 1
        while cells.count <= row {
            cells.append([])
            wraps.append(false)
        }
    }

    /// A control sequence after ESC: `[`, parameters, a final letter.
    private mutating func escape(_ characters: inout ArraySlice<Character>) {
        guard characters.first == "[" else { return }
        characters.removeFirst()
        var parameters = ""
        while let next = characters.popFirst() {
            guard next.isLetter else {
                parameters.append(next)
                continue
            }
            let count = max(1, Int(parameters) ?? 1)
            switch next {
            case "K": eraseRow()
            case "J":
                eraseRow()
                cells.removeSubrange((row + 1)...)
                wraps.removeSubrange((row + 1)...)
                wraps[row] = false
            case "A": row = max(0, row - count)
            case "C": column = min(width - 1, column + count)
            case "D": column = max(0, column - count)
            default: break  // Colours change no text.
            }
            return
        }
    }
}
