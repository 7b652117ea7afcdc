import Glibc
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

    /// Plugin code that runs between commands (the services a `--watch` reload starts again) and leaves half a
    /// line in standard output's buffer: the line goes above the prompt, on a row of its own, before the reload's
    /// lines, and the line being typed is drawn again. It stayed in the buffer until the next command, then ran
    /// into that command's first line.
    @Test func halfALineFromAServiceAReloadStartsGoesAboveThePrompt() throws {
        let plugins = try TemporaryDirectory()
        let library = try plugins.file("libHangyPlugin.so", containing: BuildProducts.bytes(of: "libHangyPlugin.so"))
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "hangy": "\(library)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}],
                 "services": [{"plugin": "hangy", "service": "HalfLine"}],
                 "start": ["launch"]}
                """)
        let shell = try ChildProcess.flowhost(["run", manifest, "--watch"], environment: directory.environment())
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        try shell.send("sta")
        try shell.waitFor("flowhost> sta")

        let rebuilt = try BuildProducts.bytes(of: "libHangyPlugin.so") + [UInt8](repeating: 0, count: 16)
        let staging = try plugins.file("libHangyPlugin.so.tmp", containing: rebuilt)
        try #require(rename(staging, library) == 0)

        try shell.waitFor("reloaded plugin 'hangy': generation 2")
        try shell.waitFor("flowhost> sta")
        let rows = TerminalScreen(shell.transcript).rows
        #expect(rows.first == "half a line%", "the start's")
        let stopped = try #require(rows.firstIndex(of: "  service hangy.HalfLine stopped"))
        #expect(Array(rows[(stopped + 1)...].prefix(2)) == ["half a line%", "  service hangy.HalfLine started"])
        #expect(rows.last == "flowhost> sta")
        #expect(rows.filter { $0.contains("half a line") }.count == 2)
        try shell.send("ck\r")
        try shell.waitFor("stack: welcome")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// A terminal that may not wrap at its margin as the mark needs (`TERM=dumb`, an Emacs shell buffer) gets
    /// nothing: every command printed the mark's spaces and erase sequence there, plugin output or not.
    @Test func aDumbTerminalGetsNoMark() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.hangyManifest(["hangy.unended": "UnendedLine"])
        let shell = try ChildProcess.flowhost(
            ["run", manifest], environment: directory.environment(term: "dumb"))
        try shell.waitFor("flowhost> ")
        try shell.send("send hangy.unended\n")
        try shell.waitFor("top: unended")
        try shell.send("quit\n")
        #expect(try shell.waitForExit() == .exited(0))
        let output = String(decoding: shell.transcript, as: UTF8.self)
        #expect(output.contains("half a line  hangy.unended from welcome"), "left as the plugin wrote it")
        #expect(!output.contains("%"))
    }
}
