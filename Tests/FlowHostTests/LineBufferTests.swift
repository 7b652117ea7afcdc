import Testing

@testable import LineEditing

/// Editing the text of a line: the cursor moves by characters, whatever their UTF-8 length.
struct LineBufferTests {
    @Test func insertingAfterMovingLeftPutsTextAtTheCursor() {
        var buffer = LineBuffer("stck")
        buffer.moveLeft()
        buffer.moveLeft()

        buffer.insert("a")

        #expect(buffer.text == "stack")
        #expect(buffer.cursor == 3)
    }

    @Test func aMultiByteCharacterIsOneCursorStep() {
        var buffer = LineBuffer("né✓日")
        buffer.moveLeft()
        buffer.moveLeft()
        buffer.deleteBackward()

        #expect(buffer.text == "n✓日")
        #expect(buffer.cursor == 1)
        #expect(buffer.textBeforeCursor == "n")
    }

    @Test func aCombiningMarkJoinsTheLetterBeforeIt() {
        var buffer = LineBuffer("e")
        buffer.insert("\u{301}")

        #expect(buffer.characters.count == 1)
        #expect(buffer.cursor == 1)
        buffer.deleteBackward()
        #expect(buffer.isEmpty)
    }

    @Test func homeEndAndTheirLimits() {
        var buffer = LineBuffer("abc")
        buffer.moveRight()
        #expect(buffer.cursor == 3)
        buffer.moveToStart()
        buffer.moveLeft()
        #expect(buffer.cursor == 0)
        let deletedBefore = buffer.deleteBackward()
        buffer.moveToEnd()
        let deletedAfter = buffer.deleteForward()
        #expect(!deletedBefore && !deletedAfter)
        #expect(buffer.text == "abc")
    }

    @Test func deleteRemovesTheCharacterUnderTheCursor() {
        var buffer = LineBuffer("abc")
        buffer.moveToStart()

        let deleted = buffer.deleteForward()

        #expect(deleted)
        #expect(buffer.text == "bc")
        #expect(buffer.cursor == 0)
    }

    @Test func controlKDeletesToTheEndAndControlUToTheStart() {
        var buffer = LineBuffer("send catalog.list from home")
        for _ in 0..<10 { buffer.moveLeft() }

        buffer.deleteToEnd()
        #expect(buffer.text == "send catalog.list")
        buffer.moveLeft()
        buffer.deleteToStart()
        #expect(buffer.text == "t")
        #expect(buffer.cursor == 0)
    }

    @Test func controlWDeletesTheWordBeforeTheCursorAndTheSpacesAfterIt() {
        var buffer = LineBuffer("send catalog.list  ")

        buffer.deleteWordBackward()
        #expect(buffer.text == "send ")
        buffer.deleteWordBackward()
        #expect(buffer.text == "")
    }

    @Test func wordMovesSkipSpacesThenAWord() {
        var buffer = LineBuffer("act submit {}")
        buffer.moveWordLeft()
        #expect(buffer.cursor == 11)
        buffer.moveWordLeft()
        #expect(buffer.cursor == 4)
        buffer.moveWordRight()
        #expect(buffer.cursor == 10)
    }
}
