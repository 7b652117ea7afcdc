import Testing

@testable import LineEditing

/// Bytes a terminal sends in raw mode, decoded into keys.
struct KeyDecoderTests {
    private func keys(_ text: String) -> [TerminalKey] {
        var decoder = KeyDecoder()
        return decoder.decode(Array(text.utf8))
    }

    @Test func typedTextIsOneRunIncludingMultiByteCharacters() {
        #expect(keys("héllo ✓ 日本") == [.text("héllo ✓ 日本")])
    }

    @Test func arrowsHomeEndAndDeleteInBothEscapeForms() {
        #expect(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [.up, .down, .right, .left])
        #expect(keys("\u{1B}OA\u{1B}OD\u{1B}OH\u{1B}OF") == [.up, .left, .home, .end])
        #expect(
            keys("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~") == [.home, .end, .home, .end, .home, .end])
        #expect(keys("\u{1B}[3~") == [.delete])
    }

    @Test func controlKeysOfTheEditor() {
        #expect(
            keys("\u{01}\u{05}\u{0B}\u{15}\u{17}") == [.home, .end, .deleteToEnd, .deleteToStart, .deleteWordBackward])
        #expect(keys("\u{03}\u{04}\u{1A}\u{09}") == [.interrupt, .endOfFile, .suspend, .tab])
        #expect(keys("\u{7F}\u{08}") == [.backspace, .backspace])
    }

    @Test func modifiedArrowsAndAltLettersMoveByWords() {
        #expect(keys("\u{1B}[1;5C\u{1B}[1;5D\u{1B}b\u{1B}f") == [.wordRight, .wordLeft, .wordLeft, .wordRight])
        #expect(keys("\u{1B}\u{7F}") == [.deleteWordBackward])
    }

    @Test func carriageReturnThenLineFeedIsOneEnter() {
        #expect(keys("a\r\nb\rc\nd") == [.text("a"), .enter, .text("b"), .enter, .text("c"), .enter, .text("d")])
    }

    @Test func unknownSequencesAreDroppedWithoutLosingWhatFollows() {
        // F5, x, Insert, Alt-x, y.
        #expect(keys("\u{1B}[15~x\u{1B}[2~\u{1B}xy") == [.text("xy")])
    }

    @Test func aSequenceSplitAcrossReadsIsHeldUntilComplete() {
        var decoder = KeyDecoder()

        #expect(decoder.decode(Array("ab\u{1B}[".utf8)) == [.text("ab")])
        #expect(decoder.isWaiting)
        #expect(decoder.decode(Array("1;5".utf8)) == [])
        #expect(decoder.decode(Array("Cz".utf8)) == [.wordRight, .text("z")])
        #expect(!decoder.isWaiting)
    }

    @Test func aCharacterSplitAcrossReadsIsHeldUntilComplete() {
        var decoder = KeyDecoder()
        let bytes = Array("é✓".utf8)  // 2 + 3 bytes

        #expect(decoder.decode(bytes[..<1]) == [])
        #expect(decoder.decode(bytes[1..<3]) == [.text("é")])
        #expect(decoder.decode(bytes[3...]) == [.text("✓")])
    }

    @Test func aLoneEscapeIsDroppedWhenNothingFollows() {
        var decoder = KeyDecoder()

        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.isWaiting)
        #expect(decoder.flush() == [])
        #expect(decoder.decode(Array("a".utf8)) == [.text("a")], "the next key is not taken as Alt-a")
    }

    @Test func anIncompleteCharacterFlushesAsAReplacementCharacter() {
        var decoder = KeyDecoder()

        #expect(decoder.decode([0xE2, 0x9C]) == [])
        #expect(decoder.flush() == [.text("\u{FFFD}")])
    }
}
