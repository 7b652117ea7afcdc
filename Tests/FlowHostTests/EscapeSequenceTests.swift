import Testing

@testable import LineEditing

/// What a line typed at a dumb terminal keeps of its escape sequences: nothing.
struct EscapeSequenceTests {
    @Test(arguments: [
        ("stack\u{1B}[D", "stack"),  // an arrow
        ("st\u{1B}[1;5Cack", "stack"),  // Ctrl-Right, with parameters
        ("stack\u{1B}OH", "stack"),  // Home, as a single shift
        ("\u{1B}bstack", "stack"),  // Alt-B
        ("stack\u{1B}", "stack"),  // a lone Escape at the end
        ("send greet {\"name\": \"Zoë\"}", "send greet {\"name\": \"Zoë\"}"),  // nothing to drop
    ])
    func escapeSequencesAreDroppedAndTheRestKept(typed: String, read: String) {
        #expect(EscapeSequence.stripped(from: typed) == read)
    }
}
