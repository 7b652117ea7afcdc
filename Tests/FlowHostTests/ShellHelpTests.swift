import FlowKit
import LineEditing
import Testing

@testable import FlowHost
@testable import FlowShell

/// `help` and `help COMMAND`: what they print for a command, for a word that is none, and `open`'s example,
/// taken from the manifest's own deep links.
@MainActor
struct ShellHelpTests {
    private func demo() throws -> HostShell {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        return shell
    }

    /// A shell on a manifest whose deep links are `deepLinks` (JSON), with the settings plugin's `About`.
    private func shell(deepLinks: String) throws -> HostShell {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "About"}],
             "deepLinks": \(deepLinks)}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()
        return shell
    }

    /// `wait reload` returns at once for a reload that came before it (docs/shell.md; ReloadWaitTests): its
    /// help says so, rather than promising to wait for the next generation.
    @Test func waitsHelpSaysAnEarlierReloadEndsItAtOnce() throws {
        let help = try demo().execute("help wait").lines.joined(separator: " ").split(separator: " ").joined(
            separator: " ")
        #expect(help.contains("return at once if PLUGIN was reloaded"), "\(help)")
        #expect(help.contains("since the start or the last wait for it, else wait for its next reload"), "\(help)")
    }

    @Test func helpWithACommandPrintsOnlyThatCommandsLines() throws {
        let shell = try demo()

        let act = shell.execute("help act")
        #expect(act.status == .ok)
        #expect(act.lines == ["act ACTION [JSON]                   trigger an action on the visible module"])
        // Words after the command narrow it to the forms that begin so.
        #expect(
            shell.execute("help back to").lines == [
                "back root | back to MODULE          go back to the visible stack's first screen, or to MODULE"
            ])
        #expect(shell.execute("help back   to").lines == shell.execute("help back to").lines, "spaces as typed")
        // `back` is on two lines of the help; `dismiss` on one of them.
        #expect(shell.execute("help back").lines.map(\.firstWord) == ["back", "back"])
        #expect(shell.execute("help dismiss").lines == shell.execute("help back").lines.prefix(1).map { $0 })
        let expect = shell.execute("help expect").lines
        #expect(expect.filter { !$0.hasPrefix(" ") }.map(\.firstWord) == Array(repeating: "expect", count: 7))
        // Words no form begins with are said so, above every form.
        #expect(
            shell.execute("help expect zzz").lines == ["no form of 'expect' begins 'expect zzz'; its forms:"] + expect)
        // A long line typed is named by its start and length, within the help's width.
        let long = shell.execute("help expect " + String(repeating: "z", count: 100_000)).lines
        #expect(
            long.first
                == "no form of 'expect' begins 'expect \(String(repeating: "z", count: 25))... (100007 characters)'; its forms:"
        )
        #expect(long.allSatisfy { $0.count <= HostShell.helpWidth }, "\(long)")
    }

    @Test func helpOfAWordThatIsNoCommandIsOneLineNamingTheNearest() throws {
        let shell = try demo()

        let typo = shell.execute("help stak")
        #expect(typo.status == .error("help: no command 'stak'; did you mean 'stack'?"))
        #expect(typo.lines.isEmpty)
        #expect(shell.execute("help xyzzy").status == .error("help: no command 'xyzzy'; type 'help' for the list"))
    }

    @Test func everyLineOfTheHelpFitsInOneHundredColumnsAsPrinted() throws {
        let shell = try demo()

        let help = shell.execute("help").lines
        #expect(help.count > HostShell.commands.count)
        // The session indents every line of a reply by two columns.
        for line in help { #expect(line.count + 2 <= 100, "\(line.count + 2) columns: \(line)") }
    }

    @Test func opensExampleIsOneOfTheManifestsOwnDeepLinks() throws {
        let shell = try shell(
            deepLinks: """
                [{"pattern": "acme://about", "requests": ["settings.about"]},
                 {"pattern": "acme://users/{name}/posts/{number:int}", "requests": ["settings.about"]}]
                """)

        let open = shell.execute("help open")
        #expect(
            open.lines == [
                "open URL                            apply the manifest's deep link for URL",
                "                                    (acme://users/name/posts/1)",
            ])
        #expect(shell.execute("help").lines.filter { $0.contains("://") } == open.lines.suffix(1).map { "  " + $0 })
        // The example is one the manifest maps.
        #expect(shell.execute("open acme://users/name/posts/1").status == .ok)
    }

    @Test func aManifestWithoutDeepLinksShowsNoExample() throws {
        let shell = try shell(deepLinks: "[]")

        #expect(
            shell.execute("help open").lines == [
                "open URL                            apply the manifest's deep link for URL"
            ])
    }

    @Test func tabAfterHelpOffersTheCommands() throws {
        let completer = try demo().completer

        #expect(completer.completions(before: "help ").candidates == HostShell.commandWords.sorted())
        #expect(completer.completions(before: "help sta").candidates == ["stack", "stats"])
    }
}

/// `help` on a pseudo-terminal, as a person sees it.
struct ShellHelpTerminalTests {
    private func start(environment: [String: String] = [:]) throws -> (ChildProcess, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")],
            environment: directory.environment().merging(environment) { $1 })
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        return (shell, directory)
    }

    @Test func helpOfOneCommandAndOfATypoOnScreen() throws {
        let (shell, _) = try start()
        let before = TerminalScreen(shell.transcript).rows

        try shell.send("help act\r")
        try shell.waitFor("visible module")
        try shell.waitFor("flowhost> ")
        try shell.send("help stak\r")
        try shell.waitFor("did you mean 'stack'?")
        try shell.waitFor("flowhost> ")

        #expect(
            TerminalScreen(shell.transcript).rows
                == before.dropLast() + [
                    "flowhost> help act",
                    "  act ACTION [JSON]                   trigger an action on the visible module",
                    "flowhost> help stak",
                    "error: help: no command 'stak'; did you mean 'stack'?",
                    "flowhost>",
                ])
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// On a screen 100 columns wide, the help wraps nowhere: its rows are those of a screen with no limit.
    @Test func theHelpFitsAScreenOneHundredColumnsWide() throws {
        let (shell, _) = try start()

        try shell.send("help\r")
        try shell.waitFor("help [COMMAND]")
        try shell.waitFor("flowhost> ")

        let rows = TerminalScreen(shell.transcript, width: 100).rows
        #expect(rows.contains("  commands:"))
        #expect(rows == TerminalScreen(shell.transcript, width: 10_000).rows)
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }
}
