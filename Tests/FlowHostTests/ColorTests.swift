import FlowKit
import Testing

@testable import FlowShell

/// Colour only on a terminal: `--color auto|always|never`, `NO_COLOR` and `TERM=dumb` for auto.
struct ColorTests {
    private static let escape = "\u{1B}["

    @Test func autoColoursOnlyATerminalWithoutNoColorNorADumbTerm() {
        #expect(ColorMode.auto.colors(isTerminal: true, noColor: nil, term: "xterm-256color"))
        #expect(ColorMode.auto.colors(isTerminal: true, noColor: "", term: nil))
        #expect(!ColorMode.auto.colors(isTerminal: false, noColor: nil, term: "xterm"))
        #expect(!ColorMode.auto.colors(isTerminal: true, noColor: "1", term: "xterm"))
        #expect(!ColorMode.auto.colors(isTerminal: true, noColor: nil, term: "dumb"))
    }

    @Test func alwaysAndNeverIgnoreTheStreamAndTheEnvironment() {
        #expect(ColorMode.always.colors(isTerminal: false, noColor: "1", term: "dumb"))
        #expect(!ColorMode.never.colors(isTerminal: true, noColor: nil, term: "xterm"))
    }

    @Test func paletteWrapsTextInOneSequenceAndAReset() {
        let palette = Palette(isEnabled: true)

        #expect(palette.error("bad") == "\u{1B}[31mbad\u{1B}[0m")
        #expect(palette.warning("hm") == "\u{1B}[33mhm\u{1B}[0m")
        #expect(palette.failure("no") == "\u{1B}[1;31mno\u{1B}[0m")
        #expect(Palette.plain.error("bad") == "bad")
    }

    @Test func theShellsWarningsAreYellow() throws {
        let manifest = Repository.path("manifests/demo.json")
        let run = try Subprocess.flowhost(
            ["run", manifest, "--color", "always"], input: "send auth.signIn from welcom\n")

        #expect(
            run.outputLines.contains(
                "  \u{1B}[33mwarning: module 'welcom' is not on screen and no route names it; did you mean 'welcome'?\u{1B}[0m"
            ))
    }

    @Test func errorsToAPipeHaveNoEscapeCodesUnlessAlways() throws {
        let missing = "/nonexistent/app.json"
        let auto = try Subprocess.flowhost(["validate", missing])
        let never = try Subprocess.flowhost(["validate", missing, "--color", "never"])
        let always = try Subprocess.flowhost(["--color=always", "validate", missing])

        #expect(auto.standardError == "flowhost: \(missing): manifest file not found\n")
        #expect(never.standardError == auto.standardError)
        #expect(always.standardError == "\u{1B}[31mflowhost: \(missing): manifest file not found\u{1B}[0m\n")
        #expect([auto.status, never.status, always.status] == [66, 66, 66])
    }

    @Test func autoColoursATerminalUnlessNoColorIsSet() throws {
        let arguments = ["validate", "/nonexistent/app.json"]
        let terminal = try Subprocess.flowhost(arguments, environment: ["TERM": "xterm"], terminal: true)
        let noColor = try Subprocess.flowhost(
            arguments, environment: ["TERM": "xterm", "NO_COLOR": "1"], terminal: true)

        #expect(
            terminal.standardOutput.contains(
                Self.escape + "31mflowhost: /nonexistent/app.json: manifest file not found"))
        #expect(noColor.standardOutput.contains("flowhost: /nonexistent/app.json: manifest file not found"))
        #expect(!noColor.standardOutput.contains(Self.escape))
    }

    @Test func onlyTheErrorLineOfAUsageErrorIsColoured() throws {
        let run = try Subprocess.flowhost(["--color", "always", "list"])

        #expect(run.errorLines == ["\u{1B}[31mflowhost: missing MANIFEST\u{1B}[0m", FlowHostCommandLine.list.usage])
    }

    @Test func badColorValueIsAUsageError() throws {
        let run = try Subprocess.flowhost(["validate", "x.json", "--color", "sometimes"])

        #expect(run.status == 64)
        #expect(run.errorLines.first == "flowhost: --color must be auto, always or never, not 'sometimes'")
    }

    @Test func jsonIsNeverColoured() throws {
        let run = try Subprocess.flowhost(["--color", "always", "validate", "/nonexistent/app.json", "--json"])

        #expect(run.status == 66)
        #expect(!run.standardOutput.contains(Self.escape))
        #expect(try JSONValue(parsing: run.standardOutput)["valid"] == false)
    }
}
