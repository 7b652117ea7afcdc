import Testing

@testable import LineEditing

/// Drawing the line on one row: prompt, the text around the cursor, the cursor in place.
struct LineDisplayTests {
    @Test func drawsThePromptAndLineThenPutsTheCursorBack() {
        var display = LineDisplay()
        var buffer = LineBuffer("stats")
        buffer.moveLeft()

        let drawn = display.render(prompt: "> ", buffer: buffer, width: 80)

        #expect(drawn == "\r> stats\u{1B}[J\r\u{1B}[6C")
    }

    @Test func aLineWiderThanTheTerminalScrollsToKeepTheCursorInView() {
        var display = LineDisplay()
        let buffer = LineBuffer("0123456789abcdefghij")  // cursor at the end

        // 12 columns: 2 for the prompt, 9 for text, the last for the cursor at the end.
        let drawn = display.render(prompt: "> ", buffer: buffer, width: 12)

        #expect(drawn == "\r> bcdefghij\u{1B}[J\r\u{1B}[11C")
        #expect(display.scroll == 11)
    }

    @Test func scrollingFollowsTheCursorBackToTheStart() {
        var display = LineDisplay()
        var buffer = LineBuffer("0123456789abcdefghij")
        _ = display.render(prompt: "> ", buffer: buffer, width: 12)

        buffer.moveToStart()
        let drawn = display.render(prompt: "> ", buffer: buffer, width: 12)

        #expect(drawn == "\r> 012345678\u{1B}[J\r\u{1B}[2C")
    }

    /// A terminal made narrower re-wraps the row drawn last (a row of 97 columns becomes three at 40): the
    /// redraw leaves none of those rows on screen, wherever the cursor was in the line, nor takes a row of
    /// what was printed before it.
    @Test(arguments: [0, 40, 87])
    func aRedrawAfterTheTerminalNarrowsLeavesNoRowOfTheOldDrawing(cursorFromEnd: Int) {
        var display = LineDisplay()
        var buffer = LineBuffer("help " + String(repeating: "abcdefghij", count: 8) + "xy")  // 87 characters
        for _ in 0..<cursorFromEnd { buffer.moveLeft() }
        var screen = TerminalScreen(Array("earlier output\r\n".utf8), width: 100)
        screen.play(Array(display.render(prompt: "flowhost> ", buffer: buffer, width: 100).utf8))
        #expect(screen.rows.count == 2)

        screen.resize(to: 40)
        #expect(screen.rows.count == 4, "re-wrapped: \(screen.rows)")
        screen.play(Array(display.render(prompt: "flowhost> ", buffer: buffer, width: 40).utf8))

        #expect(screen.rows.count == 2, "\(screen.rows)")
        #expect(screen.rows.first == "earlier output")
        #expect(screen.rows.last?.hasPrefix("flowhost> ") == true)
    }

    /// Lines printed above the line after the terminal narrowed replace all of its old drawing.
    @Test func linesPrintedAboveAfterTheTerminalNarrowsTakeTheWholeOldDrawing() {
        var display = LineDisplay()
        let buffer = LineBuffer(String(repeating: "abcdefghij", count: 8))
        var screen = TerminalScreen(Array("earlier output\r\n".utf8), width: 100)
        screen.play(Array(display.render(prompt: "flowhost> ", buffer: buffer, width: 100).utf8))
        screen.resize(to: 40)

        let erased = display.erase(width: 40)
        screen.play(Array((erased + "reloaded\r\n").utf8))
        screen.play(Array(display.render(prompt: "flowhost> ", buffer: buffer, width: 40).utf8))

        #expect(erased == "\u{1B}[2A\r\u{1B}[J")
        #expect(screen.rows == ["earlier output", "reloaded", "flowhost> " + String(buffer.text.suffix(29))])
    }

    /// Once the cursor has left the line for a row below it (the candidates listed, a stop), the next drawing
    /// starts there and goes up to none of the old one's rows.
    @Test func aLineLeftForTheRowBelowIsNotGoneBackTo() {
        var display = LineDisplay()
        let buffer = LineBuffer(String(repeating: "abcdefghij", count: 8))
        _ = display.render(prompt: "flowhost> ", buffer: buffer, width: 100)

        display.leave()

        #expect(display.render(prompt: "flowhost> ", buffer: buffer, width: 40).hasPrefix("\rflowhost> "))
    }

    /// The cursor goes with the character it is on as tmux re-wraps a row; after the last one it stays on the
    /// last row, even a full one; a wide character that does not fit moves whole to the next row.
    @Test func theCursorsRowAfterARewrapFollowsItsCharacter() {
        let ninetyFive = Array(repeating: 1, count: 95)
        #expect(LineDisplay.cursorRow(cells: ninetyFive, cursor: 95, width: 100) == 0)
        #expect(LineDisplay.cursorRow(cells: ninetyFive, cursor: 95, width: 40) == 2)
        #expect(LineDisplay.cursorRow(cells: ninetyFive, cursor: 80, width: 40) == 2)
        #expect(LineDisplay.cursorRow(cells: ninetyFive, cursor: 79, width: 40) == 1)
        #expect(LineDisplay.cursorRow(cells: Array(repeating: 1, count: 80), cursor: 80, width: 40) == 1)
        #expect(LineDisplay.cursorRow(cells: Array(repeating: 1, count: 39) + [2, 1], cursor: 40, width: 40) == 1)
    }

    /// A line entered is drawn whole over the rows it takes; lines printed above it before its command's
    /// output (``LineEditor/releaseSubmittedLine()``) take all of them, even when it fills its last row to the
    /// end, where the cursor waits on the last column.
    @Test(arguments: [75, 90])
    func aLineEnteredIsDrawnWholeAndLinesPrintedAboveItTakeAllItsRows(length: Int) {
        var display = LineDisplay()
        let buffer = LineBuffer(String(repeating: "x", count: length))  // 85 or 100 columns with the prompt
        var screen = TerminalScreen(Array("earlier output\r\n".utf8), width: 50)
        screen.play(Array(display.render(prompt: "flowhost> ", buffer: buffer, width: 50).utf8))

        screen.play(Array((display.renderWhole(prompt: "flowhost> ", buffer: buffer, width: 50) + "\r\n").utf8))
        let whole = ["flowhost> " + String(repeating: "x", count: 40), String(repeating: "x", count: length - 40)]
        #expect(screen.rows == ["earlier output"] + whole)
        screen.play(Array(("\u{1B}[A" + display.erase(width: 50) + "reloaded\r\n").utf8))
        screen.play(Array((display.renderWhole(prompt: "flowhost> ", buffer: buffer, width: 50) + "\r\n").utf8))

        #expect(screen.rows == ["earlier output", "reloaded"] + whole)
    }

    @Test func wideCharactersTakeTwoColumnsAndEscapesNone() {
        #expect(LineDisplay.columns(of: "日本") == 4)
        #expect(LineDisplay.columns(of: "é✓") == 2)
        #expect(LineDisplay.columns(of: "\u{1B}[1;32mflowhost>\u{1B}[0m ") == 10)
    }
}
