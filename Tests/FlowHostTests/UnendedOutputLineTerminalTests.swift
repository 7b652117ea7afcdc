import Testing

/// Plugin code that prints text without a newline after it (`print(_:terminator:)` with an empty terminator),
/// on a terminal: the shell's next line starts a row of its own, and the text stays on screen.
struct UnendedOutputLineTerminalTests {
    /// The hangy plugin's `UnendedLine` manager prints `half a line` and returns: the outcome's lines once ran
    /// on after that text (`half a line  hangy.unended from ...`), and the prompt's `\r` could draw over it.
    @Test func theShellsNextLineStartsARowAfterAPluginsHalfLine() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.hangyManifest(["hangy.unended": "UnendedLine"])
        let shell = try ChildProcess.flowhost(["run", manifest], environment: directory.environment())
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let before = TerminalScreen(shell.transcript).rows

        try shell.send("send hangy.unended\r")
        try shell.waitFor("top: unended")
        try shell.waitFor("flowhost> ")
        let after = TerminalScreen(shell.transcript).rows
        #expect(
            after
                == before.dropLast() + [
                    "flowhost> send hangy.unended", "half a line%",
                    "  hangy.unended from welcome: handled by hangy.UnendedLine (libHangyPlugin.so)",
                    "    presented unended (inline)", "  top: unended", "flowhost>",
                ])

        // A command whose plugin code printed nothing adds no row.
        try shell.send("stack\r")
        try shell.waitFor("stack: welcome > unended")
        try shell.waitFor("flowhost> ")
        #expect(
            TerminalScreen(shell.transcript).rows
                == after.dropLast() + ["flowhost> stack", "  stack: welcome > unended", "  top: unended", "flowhost>"])
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }
}
