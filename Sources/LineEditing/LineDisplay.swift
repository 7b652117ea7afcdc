/// How a line being edited is drawn: the prompt and the line on one terminal row. A line wider than the
/// row scrolls sideways so that the cursor stays in view; once entered, it is drawn whole
/// (``renderWhole(prompt:buffer:width:)``).
///
/// One row keeps redrawing simple and exact: return to the row's first column, draw, clear to the end of the
/// screen. Lines printed while someone types go above it the same way.
///
/// Terminals disagree on the width of emoji (👍🏽 is 4 columns in tmux 3.3, 2 in kitty; ``CharacterWidth``):
/// a row laid out by one count ran past the row's end on a terminal that counts more, which wrapped it, and
/// every redraw from the second row left the first on screen, a copy of the line for each key. So the row
/// is laid out by the most any terminal gives each character, which costs a few columns left free where
/// the terminal counts less, and the cursor is placed by the terminal's own count when the counts could
/// differ (``cursorMove(prompt:before:widths:)``). Going up after a re-wrap counts rows by the same most, so
/// on such a terminal it may go a row too far, the lesser harm again.
///
/// A row drawn at one width is re-wrapped by most terminals when they are made narrower (tmux, VTE, kitty,
/// iTerm2, Windows Terminal): a row of 97 columns becomes three at 40, and the cursor goes with its character
/// to one of them. Returning to the cursor's row alone left the others on screen, so every redraw first goes
/// up to the drawing's first row as re-wrapped at the width now (``cursorRow(cells:cursor:width:)``), and
/// clears to the end of the screen, which takes the rows below the cursor's too. A terminal that cuts rows
/// short instead (xterm) then loses as many rows of earlier output above the prompt as that moves up, which
/// is less harm than copies of the line; asking where the cursor is (`ESC [ 6 n`) would tell, but its answer
/// arrives among the keys typed.
struct LineDisplay: Equatable, Sendable {
    /// The first character of the line shown; more than 0 when the line is scrolled.
    private(set) var scroll = 0
    /// What the last ``render(prompt:buffer:width:)`` drew, while the cursor is in it; `nil` when the cursor
    /// is at the start of a row of its own (a new line, after ``erase(width:)`` or ``leave()``).
    private var drawn: Drawing?

    /// A drawing: the columns of each character drawn, the prompt's included, and how many come before the
    /// cursor.
    private struct Drawing: Equatable, Sendable {
        var cells: [Int]
        var cursor: Int
    }

    /// The bytes that draw `prompt` and `buffer` on the current row of a terminal `width` columns wide and
    /// put the cursor where the buffer's cursor is; scrolls as needed.
    mutating func render(prompt: String, buffer: LineBuffer, width: Int) -> String {
        let promptWidths = Self.widths(of: prompt)
        let promptCells = promptWidths.map(\.most)
        let promptWidth = promptCells.reduce(0, +)
        // The last column stays free: a character there would make some terminals wrap early.
        let room = max(1, width - promptWidth - 1)
        let characters = buffer.characters
        let characterWidths = characters.map(CharacterWidth.init(of:))
        // The most a terminal may give each (``CharacterWidth``): the row drawn never runs onto the next.
        let widths = characterWidths.map(\.most)
        // Running sums, not a sum per step: a pasted line of 20,000 characters, or End on one, took seconds
        // summing its widths again for each character scrolled past.
        scroll = min(scroll, buffer.cursor)
        var beforeCursor = widths[scroll..<buffer.cursor].reduce(0, +)
        while beforeCursor > room {
            beforeCursor -= widths[scroll]
            scroll += 1
        }
        // Show as much as fits: scroll back when the text from an earlier character still fits.
        var fromScroll = widths[scroll...].reduce(0, +)
        while scroll > 0, fromScroll + widths[scroll - 1] <= room {
            scroll -= 1
            fromScroll += widths[scroll]
        }

        var shown = ""
        var end = scroll
        var used = 0
        while end < characters.count, used + widths[end] <= room {
            shown.append(characters[end])
            used += widths[end]
            end += 1
        }
        let start = returnToStart(width: width)
        drawn = Drawing(
            cells: promptCells + widths[scroll..<end],
            cursor: promptCells.count + buffer.cursor - scroll)
        return start + prompt + shown + "\u{1B}[J" + "\r"
            + Self.cursorMove(
                prompt: prompt, before: characters[scroll..<buffer.cursor],
                widths: promptWidths + characterWidths[scroll..<buffer.cursor])
    }

    /// The bytes that move the cursor from the row's first column to after `prompt` and `before`, whose
    /// characters are `widths` wide: a count of columns when every terminal agrees on it, else `prompt` and
    /// `before` written again over themselves, so that the terminal puts the cursor after them by its own
    /// count (tmux 3.3 gives 👍🏽 4 columns, kitty 2). Moved by a count right for only some terminals, the cursor
    /// stood away from its character on the others.
    private static func cursorMove(
        prompt: String, before: ArraySlice<Character>, widths: some Sequence<CharacterWidth>
    ) -> String {
        var columns = 0
        for width in widths {
            guard width.isCertain else { return prompt + String(before) }
            columns += width.most
        }
        return columns > 0 ? "\u{1B}[\(columns)C" : ""
    }

    /// The bytes that draw `prompt` and the whole of `buffer` for good, the line entered: from its start,
    /// wrapped by the terminal over as many rows as it takes, the cursor after its end. A scrolled drawing
    /// left as it was kept only the part around the cursor, its end after End, in the scrollback above the
    /// command's output; readline, fish and zsh leave the whole line there too.
    ///
    /// Erasing it (``erase(width:)``) goes up to its first row, as for a drawing re-wrapped by the terminal.
    mutating func renderWhole(prompt: String, buffer: LineBuffer, width: Int) -> String {
        let start = returnToStart(width: width)
        let cells = Self.cells(of: prompt) + buffer.characters.map { CharacterWidth(of: $0).most }
        drawn = Drawing(cells: cells, cursor: cells.count)
        // Cleared first: after a row filled to its last column the cursor stays on that column until the next
        // character, and clearing from there would take the line's last character.
        return start + "\u{1B}[J" + prompt + buffer.text
    }

    /// The bytes that erase the line drawn last, on a terminal now `width` columns wide, and leave the cursor at
    /// the start of the row it began on: for lines printed above the line, which is drawn again after them.
    mutating func erase(width: Int) -> String {
        defer { drawn = nil }
        return returnToStart(width: width) + "\u{1B}[J"
    }

    /// The line drawn last stays on screen as it is: the cursor has left it for a row of its own (a newline
    /// after it, the screen cleared), where the next render starts.
    mutating func leave() {
        drawn = nil
    }

    /// Starts again at the left, for a new line.
    mutating func reset() {
        scroll = 0
        drawn = nil
    }

    /// The bytes that take the cursor to the first column of the row the last drawing began on.
    private func returnToStart(width: Int) -> String {
        guard let drawn else { return "\r" }
        let up = Self.cursorRow(cells: drawn.cells, cursor: drawn.cursor, width: width)
        return (up > 0 ? "\u{1B}[\(up)A" : "") + "\r"
    }

    /// The row, counted from the first, that a terminal `width` columns wide puts the cursor on when it
    /// re-wraps a row of characters `cells` columns wide whose cursor is before character `cursor`.
    ///
    /// A row ends where the next character would not fit (a wide one moves whole to the next row). The cursor
    /// goes with its character; after the last one it stays on the last row, even a full one, as tmux puts it.
    static func cursorRow(cells: [Int], cursor: Int, width: Int) -> Int {
        var row = 0
        var column = 0
        for (index, cell) in cells.enumerated() {
            if column + cell > width, column > 0 {
                row += 1
                column = 0
            }
            if index == cursor { break }
            column += cell
        }
        return row
    }

    /// The columns `text` takes on a terminal, the most any gives it (``CharacterWidth``), not counting escape
    /// sequences (a coloured prompt).
    static func columns(of text: String) -> Int {
        cells(of: text).reduce(0, +)
    }

    /// The most columns each character of `text` takes on a terminal, escape sequences left out.
    static func cells(of text: String) -> [Int] {
        widths(of: text).map(\.most)
    }

    /// The columns each character of `text` takes on terminals, escape sequences left out.
    private static func widths(of text: String) -> [CharacterWidth] {
        var widths: [CharacterWidth] = []
        var inEscape = false
        for character in text {
            if inEscape {
                // A CSI sequence ends at its final byte, a letter (or `~`, `@` and the like).
                if let ascii = character.asciiValue, (0x40...0x7E).contains(ascii), character != "[" {
                    inEscape = false
                }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                continue
            }
            widths.append(CharacterWidth(of: character))
        }
        return widths
    }
}
