import Glibc
import Testing

/// `flowhost run` driven as people drive it, on a pseudo-terminal and through pipes: each command's output
/// arrives before the next command is typed, and the shell ends when asked.
///
/// Every test types a command only after the previous one's output has arrived, so a shell that held its
/// output back until the next line (as one did, flushing stdout only when the reader let go of stdin's
/// lock) fails at the first command instead of hanging. On a terminal each runs twice: with the line
/// editor, and with `TERM=dumb`, where the prompt reads plain lines as piped input does.
struct InteractiveShellTests {
    /// Commands of the demo and a line each prints, in an order that is valid from the welcome screen.
    static let conversation = [
        ("stats", "welcome.Launch: 1"),
        ("show", "action signIn: sign in with an existing account"),
        ("act signIn", "top: signIn"),
        ("stack", "modal 1: signIn"),
    ]

    static let terminals = ["xterm-256color", "dumb"]

    @Test(arguments: terminals)
    func onATerminalEachCommandsOutputArrivesBeforeTheNextIsTyped(term: String) throws {
        let state = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: state.environment(term: term))
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")

        for (command, answer) in Self.conversation {
            try shell.send(command + "\r")
            try shell.waitFor(answer)
            try shell.waitFor("flowhost> ")
        }
        try shell.send("quit\r")

        #expect(try shell.waitForExit(within: .seconds(5)) == .exited(0))
    }

    @Test(arguments: terminals)
    func onATerminalControlDOnAnEmptyLineExits(term: String) throws {
        let state = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: state.environment(term: term))
        try shell.waitFor("flowhost> ")
        try shell.send("stats\r")
        try shell.waitFor("welcome.Launch: 1")
        try shell.waitFor("flowhost> ")

        try shell.send("\u{04}")

        #expect(try shell.waitForExit(within: .seconds(5)) == .exited(0))
    }

    @Test(arguments: terminals)
    func watchedReloadIsPrintedWithoutAKeyBeingPressed(term: String) throws {
        let plugins = try TemporaryDirectory()
        for plugin in ["Welcome", "Auth", "Catalog", "Settings"] {
            _ = try plugins.file("lib\(plugin)Plugin.so", containing: BuildProducts.bytes(of: "lib\(plugin)Plugin.so"))
        }
        let state = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--watch", "--plugin-path", plugins.path],
            environment: state.environment(term: term))
        try shell.waitFor("flowhost> ")

        // A rebuilt library lands as a linker writes it: beside, then renamed over. Different bytes, so
        // that the reload is not skipped as unchanged; the loader ignores what follows the ELF contents.
        let rebuilt = try BuildProducts.bytes(of: "libSettingsPlugin.so") + [UInt8](repeating: 0, count: 16)
        let staging = try plugins.file("libSettingsPlugin.so.tmp", containing: rebuilt)
        try #require(rename(staging, plugins.path + "/libSettingsPlugin.so") == 0)

        let printed = try shell.waitFor(
            "reloaded plugin 'settings': generation 2 from \(plugins.path)/libSettingsPlugin.so")
        #expect(!printed.contains("error"))
        try shell.send("quit\r")
        #expect(try shell.waitForExit(within: .seconds(5)) == .exited(0))
    }

    /// Signed out, two links to items: the first is redirected to sign-in, the second joins that flow, and
    /// its line says it is held, not that it was redirected; after sign-in both items open, in order.
    @Test(arguments: terminals)
    func onATerminalASecondLinkHeldBehindTheSignInSaysHeld(term: String) throws {
        let state = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: state.environment(term: term))
        defer { shell.signal(SIGKILL) }
        try shell.waitFor("flowhost> ")
        try shell.send("open demo://items/2\r")
        try shell.waitFor("deep link waiting at step 1 of 1: redirected to auth.signIn")
        try shell.waitFor("flowhost> ")

        try shell.send("open demo://items/3\r")
        let second = try shell.waitFor(
            "deep link waiting at step 1 of 1: held until the flow of auth.signIn, under way, completes")
        try shell.waitFor("flowhost> ")

        #expect(second.contains("catalog.detail from signIn: held until the flow of auth.signIn, under way, completes"))
        #expect(!second.contains("redirected"), "\(second.debugDescription)")
        try shell.send("act submit {\"user\": \"ada\"}\r")
        try shell.waitFor("resuming catalog.detail from welcome")
        try shell.waitFor("resuming catalog.detail from signIn")
        try shell.waitFor("flowhost> ")
        try shell.send("expect content id 3\r")
        try shell.waitFor("flowhost> ")
        try shell.send("quit\r")
        #expect(try shell.waitForExit(within: .seconds(5)) == .exited(0))
        #expect(!String(decoding: shell.transcript, as: UTF8.self).contains("expectation failed"))
    }

    @Test func throughPipesEachLinesOutputArrivesBeforeTheNextIsWritten() throws {
        let state = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], connection: .pipes, environment: state.environment())
        // The start probes the four plugins, each in a child process: slow under a sanitizer on a loaded machine.
        try shell.waitFor("top: welcome", within: .seconds(30))

        for (command, answer) in Self.conversation {
            try shell.send(command + "\n")
            try shell.waitFor("> \(command)")
            try shell.waitFor(answer)
        }
        shell.closeInput()

        #expect(try shell.waitForExit(within: .seconds(5)) == .exited(0))
        #expect(!shell.unmatchedOutput().contains("flowhost> "), "no prompt when standard input is not a terminal")
    }
}

// MARK: - Test Helpers

extension TemporaryDirectory {
    /// An environment for a `flowhost` child that keeps its state (the prompt's history) in this directory
    /// and never in the home directory of whoever runs the tests.
    func environment(term: String = "xterm-256color") -> [String: String] {
        ["XDG_STATE_HOME": path + "/state", "HOME": path, "TERM": term]
    }
}
