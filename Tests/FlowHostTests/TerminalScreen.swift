/// What a terminal shows after a program's output: its rows of text, as a person reads them.
///
/// It plays what the line editor and the shell write: text, which wraps at the width; `\r`, `\n`, backspace;
/// and the escape sequences `ESC[K` and `ESC[J` (erase to the end of the row, of the screen), `ESC[nA`,
/// `ESC[nC` and `ESC[nD` (cursor up, right and left). Colours (`ESC[...m`) and the bell change no text; other
/// sequences (Ctrl-L's clearing) are not played. Rows that scroll off the top are kept: ``rows`` is the whole
/// history. ``resize(to:)`` re-wraps it as a terminal made narrower or wider does.
struct TerminalScreen {
    private var cells: [[Character]] = [[]]
    /// Whether each row goes on in the next, wrapped there because it was full.
    private var wraps: [Bool] = [false]
    private var row = 0
    private var column = 0
    private(set) var width: Int

    /// The screen after `output` on a terminal `width` columns wide.
    init(_ output: [UInt8], width: Int = 80) {
        self.width = width
        play(output)
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
        var rows = cells.map { String($0.reversed().drop { $0 == " " }.reversed()) }
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
            let rows = stride(from: 0, to: max(1, line.count), by: width).map {
                Array(line[min($0, line.count)..<min($0 + width, line.count)])
            }
            if index == cursorLine {
                let lastRow = rows.count - 1
                row = cells.count + min(cursorOffset / width, lastRow)
                column = min(cursorOffset - min(cursorOffset / width, lastRow) * width, width - 1)
            }
            cells += rows
            wraps += rows.indices.map { $0 < rows.count - 1 }
        }
    }

    private mutating func put(_ character: Character) {
        if column >= width {
            column = 0
            wraps[row] = true
            moveDown()
        }
        while cells[row].count < column { cells[row].append(" ") }
        if column < cells[row].count {
            cells[row][column] = character
        } else {
            cells[row].append(character)
        }
        column += 1
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
            case "K": if column < cells[row].count { cells[row].removeSubrange(column...) }
            case "J":
                if column < cells[row].count { cells[row].removeSubrange(column...) }
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
