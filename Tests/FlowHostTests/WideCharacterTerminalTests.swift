import Testing

/// Characters whose width terminals count differently (emoji with a skin tone, joined by zero width joiners,
/// presented by U+FE0F; flags; Indic conjuncts), and ones they agree on (combining marks, CJK), typed at the
/// prompt on a pseudo-terminal and edited: the screen is played as tmux, xterm and kitty count columns.
struct WideCharacterTerminalTests {
    static let home = "\u{1B}[H"
    static let end = "\u{1B}[F"
    static let right = "\u{1B}[C"
    /// Up with no history rings the bell and changes nothing: once the bell is printed, so is all before it.
    static let bell = "\u{1B}[A"

    /// A line of 75 of `sample`, wider than the row on every terminal, edited in the middle and at its end,
    /// stays one row with the cursor after the character it follows, and once entered it is on screen whole.
    /// Laid out by the editor's count of 👍🏽 (2) where tmux draws 4 columns, the row ran onto the next and each
    /// key left a copy of the line; moved by its count, the cursor stood away from its character.
    @Test(arguments: [
        "\u{1F44D}\u{1F3FD}",  // thumbs up, medium skin tone
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",  // family: man, woman, girl, joined
        "\u{1F1EB}\u{1F1F7}",  // the flag of France: two regional indicators
        "\u{263A}\u{FE0F}",  // smiling face, emoji presentation
        "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",  // rainbow flag
        "\u{1F9D1}\u{1F3FD}\u{200D}\u{1F4BB}",  // technologist, medium skin tone
        "e\u{301}",  // e and a combining acute accent
        "\u{65E5}",  // 日, East Asian wide
        "\u{915}\u{94D}\u{937}",  // क्ष, a Devanagari conjunct
    ])
    func aLineOfCharactersTerminalsCountDifferentlyIsDrawnOnceWithTheCursorInPlace(sample: String) throws {
        let directory = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: directory.environment())
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let started = shell.transcript.count
        let line = "# " + String(repeating: sample, count: 75)
        let edited = "# " + String(repeating: sample, count: 3) + "x" + String(repeating: sample, count: 72)

        try shell.send(line + Self.home + String(repeating: Self.right, count: 5) + "x" + Self.bell)
        try shell.waitFor("\u{07}")
        let inTheMiddle = shell.transcript
        try shell.send(Self.end + Self.bell)
        try shell.waitFor("\u{07}")
        let atTheEnd = shell.transcript
        try shell.send("\rstack\r")
        try shell.waitFor("stack: welcome")
        try shell.waitFor("flowhost> ")

        for widths in TerminalScreen.Widths.allCases {
            let before = TerminalScreen(Array(shell.transcript[..<started]), widths: widths).rows
            let middle = TerminalScreen(inTheMiddle, widths: widths)
            #expect(middle.rows.dropLast() == before.dropLast(), "\(widths): \(middle.rows.suffix(3))")
            #expect(middle.beforeCursor == "flowhost> # " + String(repeating: sample, count: 3) + "x", "\(widths)")
            let shown = try #require(middle.rows.last?.dropFirst("flowhost> ".count))
            #expect(edited.hasPrefix(shown) && shown.count > 6, "\(widths): \(shown)")

            let last = TerminalScreen(atTheEnd, widths: widths)
            #expect(last.rows.dropLast() == before.dropLast(), "\(widths): \(last.rows.suffix(3))")
            let shownAtTheEnd = try #require(last.rows.last?.dropFirst("flowhost> ".count))
            #expect(edited.hasSuffix(shownAtTheEnd) && shownAtTheEnd.count > 3, "\(widths): \(shownAtTheEnd)")
            #expect(last.beforeCursor == last.rows.last, "\(widths)")

            let whole = TerminalScreen(Array(("flowhost> " + edited).utf8), widths: widths).rows
            #expect(
                TerminalScreen(shell.transcript, widths: widths).rows
                    == before.dropLast() + whole + [
                        "flowhost> stack", "  stack: welcome", "  top: welcome", "flowhost>",
                    ],
                "\(widths)")
        }
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }
}
