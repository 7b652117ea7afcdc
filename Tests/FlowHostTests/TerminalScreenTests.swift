import Testing

/// The screen model the terminal tests read: re-wrapped on a resize as tmux 3.3 was seen to do it.
struct TerminalScreenTests {
    /// `capture-pane` after `resize-window -x 40`: a row of 95 columns is three, the cursor on its character.
    @Test func aNarrowerTerminalRewrapsARowAndTheCursorStaysOnItsCharacter() {
        let row = Array(repeating: UInt8(ascii: "x"), count: 95)
        var screen = TerminalScreen(Array("before\r\n".utf8) + row, width: 100)
        screen.play(Array("\u{1B}[15D".utf8))  // on the 81st character

        screen.resize(to: 40)
        screen.play(Array("\rQ".utf8))

        let x = { (count: Int) in String(repeating: "x", count: count) }
        #expect(screen.rows == ["before", x(40), x(40), "Q" + x(14)])
    }

    /// After the last character of a row that re-wraps into full rows, the cursor stays on the last of them.
    @Test func theCursorAfterTheTextStaysOnTheLastRowEvenAFullOne() {
        var screen = TerminalScreen(Array(repeating: UInt8(ascii: "x"), count: 80), width: 100)

        screen.resize(to: 40)
        screen.play(Array("\rQ".utf8))

        #expect(screen.rows == [String(repeating: "x", count: 40), "Q" + String(repeating: "x", count: 39)])
    }

    /// Rows wrapped at one width are one line again at a wider one.
    @Test func aWiderTerminalJoinsWrappedRows() {
        var screen = TerminalScreen(Array(("a" + String(repeating: "b", count: 49) + "\r\nnext").utf8), width: 30)
        #expect(screen.rows.count == 3)

        screen.resize(to: 100)

        #expect(screen.rows == ["a" + String(repeating: "b", count: 49), "next"])
    }

    /// A wide character takes its columns, moves whole to the next row when the row has too few left, and goes
    /// whole when part of it is written over, as tmux 3.3a draws them (👍🏽 4 columns there, 2 in kitty).
    @Test func aWideCharacterTakesItsColumnsAndMovesWholeToTheNextRow() {
        let thumbs = "\u{1F44D}\u{1F3FD}"
        var screen = TerminalScreen(Array(("abcdefg" + thumbs + "\u{1B}[2DZ").utf8), width: 10)

        #expect(screen.rows == ["abcdefg", "  Z"])
        #expect(
            TerminalScreen(Array(("abcdefg" + thumbs).utf8), width: 10, widths: .kitty).rows == ["abcdefg" + thumbs])
        screen.play(Array("\r\u{1B}[2C\u{65E5}".utf8))
        #expect(screen.rows == ["abcdefg", "  \u{65E5}"])
    }
}
