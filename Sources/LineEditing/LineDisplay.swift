/// How a line being edited is drawn: the prompt and the line on one terminal row. A line wider than the
/// row scrolls sideways so that the cursor stays in view.
///
/// One row keeps redrawing simple and exact: return to column 0, draw, clear to the end of the row. Lines
/// printed while someone types go above it the same way.
struct LineDisplay: Equatable, Sendable {
    /// The first character of the line shown; more than 0 when the line is scrolled.
    private(set) var scroll = 0

    /// The bytes that draw `prompt` and `buffer` on the current row of a terminal `width` columns wide and
    /// put the cursor where the buffer's cursor is; scrolls as needed.
    mutating func render(prompt: String, buffer: LineBuffer, width: Int) -> String {
        let promptWidth = Self.columns(of: prompt)
        // The last column stays free: a character there would make some terminals wrap early.
        let room = max(1, width - promptWidth - 1)
        let characters = buffer.characters
        let widths = characters.map(Self.columns(of:))
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
        var used = 0
        for index in scroll..<characters.count {
            guard used + widths[index] <= room else { break }
            shown.append(characters[index])
            used += widths[index]
        }
        let cursorColumn = promptWidth + widths[scroll..<buffer.cursor].reduce(0, +)
        return "\r" + prompt + shown + "\u{1B}[K" + "\r" + (cursorColumn > 0 ? "\u{1B}[\(cursorColumn)C" : "")
    }

    /// Starts again at the left, for a new line.
    mutating func reset() {
        scroll = 0
    }

    /// The columns `text` takes on a terminal, not counting escape sequences (a coloured prompt).
    static func columns(of text: String) -> Int {
        var count = 0
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
            count += columns(of: character)
        }
        return count
    }

    /// The columns `character` takes: 2 for East Asian wide characters and emoji, 0 for control characters,
    /// 1 otherwise.
    static func columns(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return 0 }
        if scalar.properties.isEmojiPresentation || character.unicodeScalars.contains("\u{FE0F}") { return 2 }
        return wideRanges.contains { $0.contains(scalar.value) } ? 2 : 1
    }

    /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, W and F, in broad ranges).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
    ]
}
