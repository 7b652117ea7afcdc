import Testing

/// Keys that mean nothing at the prompt, typed on a pseudo-terminal: each goes whole, so that nothing of it
/// enters the line. Alt with a letter is Escape and the letter, however many bytes the letter takes (Alt-é
/// is `ESC`, `0xC3`, `0xA9`); the Linux console's F1 is `ESC [ [ A`, one byte more than a control sequence.
struct IgnoredKeyTerminalTests {
    /// A key typed in the middle of `stack`, as the terminal sends it, and how `TERM=dumb` echoes it.
    static let keys = [("Alt-é", "\u{1B}é", "sta^[éck"), ("Linux console F1", "\u{1B}[[A", "sta^[[[Ack")]

    /// With the line editor (`xterm-256color`) and with plain lines (`dumb`, where the terminal echoes the
    /// Escape as `^[`), the key typed in the middle of `stack` leaves `stack`, which runs.
    @Test(arguments: ["xterm-256color", "dumb"], keys)
    func aKeyThatMeansNothingLeavesNothingInTheLine(term: String, key: (name: String, typed: String, echo: String))
        throws
    {
        let directory = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: directory.environment(term: term))
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let before = TerminalScreen(shell.transcript).rows

        try shell.send("sta" + key.typed + "ck\r")
        try shell.waitFor("\r\n")  // the line is done; the next prompt comes after its output
        try shell.waitFor("flowhost> ")
        try shell.send("actions\r")
        try shell.waitFor("signIn: sign in")
        try shell.waitFor("flowhost> ")

        #expect(
            TerminalScreen(shell.transcript).rows
                == before.dropLast() + [
                    "flowhost> " + (term == "dumb" ? key.echo : "stack"), "  stack: welcome", "  top: welcome",
                    "flowhost> actions", "  getStarted: take the tour, then sign in",
                    "  signIn: sign in with an existing account", "flowhost>",
                ], "\(key.name) printed: \(shell.quotedTranscript)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }
}
