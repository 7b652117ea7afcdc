import Testing

/// Alt with a key that means nothing at the prompt, typed on a pseudo-terminal: the terminal sends Escape
/// and then the key, and the key goes whole, however many bytes it takes (Alt-é is `ESC`, `0xC3`, `0xA9`),
/// so that nothing of it enters the line.
struct AltKeyTerminalTests {
    /// With the line editor (`xterm-256color`) and with plain lines (`dumb`, where the terminal echoes the
    /// Escape as `^[`), Alt-é typed in the middle of `stack` leaves `stack`, which runs.
    @Test(arguments: [("xterm-256color", "flowhost> stack"), ("dumb", "flowhost> sta^[éck")])
    func altWithANonASCIILetterLeavesNothingInTheLine(term: String, echoed: String) throws {
        let directory = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: directory.environment(term: term))
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let before = TerminalScreen(shell.transcript).rows

        try shell.send("sta\u{1B}éck\r")
        try shell.waitFor("\r\n")  // the line is done; the next prompt comes after its output
        try shell.waitFor("flowhost> ")
        try shell.send("actions\r")
        try shell.waitFor("signIn: sign in")
        try shell.waitFor("flowhost> ")

        #expect(
            TerminalScreen(shell.transcript).rows
                == before.dropLast() + [
                    echoed, "  stack: welcome", "  top: welcome", "flowhost> actions",
                    "  getStarted: take the tour, then sign in",
                    "  signIn: sign in with an existing account", "flowhost>",
                ], "it printed: \(shell.quotedTranscript)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }
}
