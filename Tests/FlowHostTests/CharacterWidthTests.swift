import Testing

@testable import LineEditing

/// The columns terminals give a character: the range covers each terminal, exact where they agree.
struct CharacterWidthTests {
    /// What tmux 3.3a drew (its `cursor_x` after printing the character alone), what xterm's and VTE's
    /// `wcwidth` per scalar gives, and what kitty's one glyph per cluster takes: all within the range.
    @Test(arguments: [
        ("\u{1F44D}\u{1F3FD}", 4, 4, 2),  // thumbs up, skin tone
        ("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", 2, 6, 2),  // family, joined
        ("\u{1F1EB}", 1, 1, 2),  // half a flag
        ("\u{263A}\u{FE0F}", 1, 1, 2),  // emoji presentation selected
        ("#\u{FE0F}\u{20E3}", 1, 1, 2),  // keycap
        ("\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}", 1, 3, 2),  // rainbow flag
        ("\u{1F469}\u{1F3FD}\u{200D}\u{1F91D}\u{200D}\u{1F468}\u{1F3FB}", 6, 10, 2),  // couple holding hands
        ("\u{915}\u{94D}\u{937}", 2, 2, 1),  // Devanagari conjunct
    ])
    func aCharacterTerminalsCountDifferentlyHasTheRangeOfTheirCounts(
        character: String, tmux: Int, xterm: Int, kitty: Int
    ) throws {
        // A string: the compiler takes the conjunct for three characters, Unicode 15.1 (and the runtime) for one.
        try #require(character.count == 1)
        let width = CharacterWidth(of: Character(character))

        #expect(width.least == min(tmux, xterm, kitty))
        #expect(width.most == max(tmux, xterm, kitty))
        #expect(!width.isCertain)
    }

    /// Letters with combining marks, CJK, conjoining Hangul, an emoji presented as one by default, a flag, a
    /// zero width space: every terminal gives them the same columns.
    @Test(
        arguments: [
            ("a", 1), ("e\u{301}", 1), ("\u{65E5}", 2), ("\u{FF21}", 2), ("\u{1100}\u{1161}", 2), ("\u{AC00}", 2),
            ("\u{1F600}", 2), ("\u{231A}", 2), ("\u{1F1EB}\u{1F1F7}", 2), ("\u{200B}", 0), ("\u{AD}", 1),
        ] as [(Character, Int)])
    func aCharacterTerminalsAgreeOnHasOneWidth(character: Character, columns: Int) {
        let width = CharacterWidth(of: character)

        #expect(width.isCertain)
        #expect(width.most == columns)
    }
}
