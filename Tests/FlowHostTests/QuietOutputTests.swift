import Testing

/// What `run --quiet` still prints, and `stats --json` as a program reads it.
struct QuietOutputTests {
    private let demo = Repository.path("manifests/demo.json")

    /// A likely typo is worth a line even when the rest of a command's reply is not.
    @Test func warningsArePrintedWhenQuiet() throws {
        let run = try Subprocess.flowhost(["run", demo, "--quiet"], input: "send auth.signIn from welcom\n")

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.outputLines.filter { !$0.isEmpty } == [
                "  warning: module 'welcom' is not on screen and no route names it; did you mean 'welcome'?"
            ])
    }

    /// One line of JSON, as the docs say: not indented as the shell's replies are.
    @Test func statsAsJSONIsOneLineAsItIs() throws {
        let run = try Subprocess.flowhost(["run", demo, "--quiet"], input: "stats --json\n")

        let lines = run.outputLines.filter { !$0.isEmpty }
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix(#"{"experiments":{},"plugins":{"auth":{"images":1,"status":"loaded"}"#) == true)
    }
}
