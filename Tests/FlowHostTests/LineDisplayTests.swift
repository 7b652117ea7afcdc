import Testing

@testable import LineEditing

/// Drawing the line on one row: prompt, the text around the cursor, the cursor in place.
struct LineDisplayTests {
    @Test func drawsThePromptAndLineThenPutsTheCursorBack() {
        var display = LineDisplay()
        var buffer = LineBuffer("stats")
        buffer.moveLeft()

        let drawn = display.render(prompt: "> ", buffer: buffer, width: 80)

        #expect(drawn == "\r> stats\u{1B}[K\r\u{1B}[6C")
    }

    @Test func aLineWiderThanTheTerminalScrollsToKeepTheCursorInView() {
        var display = LineDisplay()
        let buffer = LineBuffer("0123456789abcdefghij")  // cursor at the end

        // 12 columns: 2 for the prompt, 9 for text, the last for the cursor at the end.
        let drawn = display.render(prompt: "> ", buffer: buffer, width: 12)

        #expect(drawn == "\r> bcdefghij\u{1B}[K\r\u{1B}[11C")
        #expect(display.scroll == 11)
    }

    @Test func scrollingFollowsTheCursorBackToTheStart() {
        var display = LineDisplay()
        var buffer = LineBuffer("0123456789abcdefghij")
        _ = display.render(prompt: "> ", buffer: buffer, width: 12)

        buffer.moveToStart()
        let drawn = display.render(prompt: "> ", buffer: buffer, width: 12)

        #expect(drawn == "\r> 012345678\u{1B}[K\r\u{1B}[2C")
    }

    @Test func wideCharactersTakeTwoColumnsAndEscapesNone() {
        #expect(LineDisplay.columns(of: "日本") == 4)
        #expect(LineDisplay.columns(of: "é✓") == 2)
        #expect(LineDisplay.columns(of: "\u{1B}[1;32mflowhost>\u{1B}[0m ") == 10)
    }
}
