/// What a terminal shows after a program's output: its rows of text, as a person reads them.
///
/// It plays what the line editor and the shell write: text, which wraps at the width; `\r`, `\n`, backspace;
/// and the escape sequences `ESC[K` (erase to the end of the row), `ESC[nC` and `ESC[nD` (cursor right and
/// left). Colours (`ESC[...m`) and the bell change no text; other sequences (Ctrl-L's clearing) are not played.
/// Rows that scroll off the top are kept: ``rows`` is the whole history.
struct TerminalScreen {
    private var cells: [[Character]] = [[]]
    private var row = 0
    private var column = 0
    let width: Int

    /// The screen after `output` on a terminal `width` columns wide.
    init(_ output: [UInt8], width: Int = 80) {
        self.width = width
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

    private mutating func put(_ character: Character) {
        if column >= width {
            column = 0
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
        while cells.count <= row { cells.append([]) }
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
            case "C": column = min(width - 1, column + count)
            case "D": column = max(0, column - count)
            default: break  // Colours change no text.
            }
            return
        }
    }
}
