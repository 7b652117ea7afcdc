import Testing

/// A very long line at the prompt, as pasted (a large JSON payload): the line editor keeps up with it.
struct LongLineTerminalTests {
    /// 30,000 characters pasted, then Home and End across all of them, take as long as a short line would:
    /// scrolling to the cursor once summed the widths again for every character it scrolled past, and End
    /// on such a line froze the prompt (and every line printed above it) for most of a minute.
    @Test func homeAndEndOnAPastedLineOfThirtyThousandCharactersDoNotFreezeThePrompt() throws {
        let directory = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: directory.environment())
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let before = TerminalScreen(shell.transcript).rows

        // Home, End, then Ctrl-U clears the line; `stack` shows that every key before it was handled.
        try shell.send("# " + String(repeating: "y", count: 30_000) + "\u{1B}[H\u{1B}[F\u{15}stack\r")

        try shell.waitFor("top: welcome", within: .seconds(10))
        try shell.waitFor("flowhost> ")
        #expect(
            TerminalScreen(shell.transcript).rows
                == before.dropLast() + ["flowhost> stack", "  stack: welcome", "  top: welcome", "flowhost>"])
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// A line wider than the row, entered: it stays on screen whole, wrapped over two rows as a shell leaves
    /// it, with the command's output under it. The drawing scrolled to the cursor was left as it was, so the
    /// screen and the scrollback kept the line's end alone.
    @Test(arguments: [false, true])
    func aLineWiderThanTheRowStaysOnScreenWholeOnceEntered(cursorAtStart: Bool) throws {
        let directory = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: directory.environment())
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let before = TerminalScreen(shell.transcript).rows
        let word = String(repeating: "abcdefghij", count: 10)

        try shell.send("help " + word + (cursorAtStart ? "\u{1B}[H" : "") + "\r")

        try shell.waitFor("for the list")
        try shell.waitFor("flowhost> ")
        let typed = "flowhost> help " + word  // 115 columns: 80, then 35
        let error = "error: help: no command '\(word)'; type 'help' for the list"
        #expect(
            TerminalScreen(shell.transcript).rows
                == before.dropLast() + rows(typed, width: 80) + rows(error, width: 80) + ["flowhost>"])
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// `text` as a terminal `width` columns wide wraps it, one column to a character.
    private func rows(_ text: String, width: Int) -> [String] {
        let characters = Array(text)
        return stride(from: 0, to: characters.count, by: width).map {
            String(characters[$0..<min($0 + width, characters.count)])
        }
    }
}
