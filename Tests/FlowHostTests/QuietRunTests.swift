import FlowKit
import Testing

@testable import FlowShell

/// `flowhost run --quiet`: no events, no `top:` lines, no echoed commands; queries, errors and failed
/// expectations still show.
struct QuietRunTests {
    private let manifest = Repository.path("manifests/demo.json")

    @Test func quietScriptPrintsOnlyWhatQueriesPrint() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("walk.flow", containing: "act signIn\nstack\nback\nactions\n")

        let quiet = try Subprocess.flowhost(["run", manifest, "--script", script, "--quiet"])
        let loud = try Subprocess.flowhost(["run", manifest, "--script", script])

        #expect(quiet.status == 0)
        #expect(quiet.standardError.isEmpty)
        #expect(
            quiet.outputLines == [
                "  stack: welcome", "  modal 1: signIn", "  top: signIn",
                "  getStarted: take the tour, then sign in", "  signIn: sign in with an existing account", "",
            ])
        #expect(loud.outputLines.contains("> act signIn"))
        #expect(loud.outputLines.count > quiet.outputLines.count)
    }

    @Test func quietScriptStillReportsAFailedExpectationOnceOnStandardError() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("walk.flow", containing: "act signIn\nexpect top welcome\n")

        let run = try Subprocess.flowhost(["run", manifest, "--script", script, "--quiet"])

        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines == ["\(script):2: expectation failed: top is 'signIn', expected 'welcome'"])
    }

    @Test func quietPipedInputReportsErrors() throws {
        let run = try Subprocess.flowhost(["run", manifest, "--quiet"], input: "act fly\n")

        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.errorLines == ["<stdin>:1: error: module 'welcome' has no action 'fly' (it has: getStarted, signIn)"])
    }

    @Test func statsJSONIsOneLineInTheTranscript() throws {
        let run = try Subprocess.flowhost(["run", manifest, "--quiet"], input: "stats --json\n")

        #expect(run.status == 0)
        let stats = try JSONValue(parsing: try #require(run.outputLines.first))
        #expect(stats["requests"]?["byManager"] == ["welcome.Launch": 1])
        #expect(run.outputLines.count == 2)
    }

    @MainActor @Test func onlyQueriesCountAsQueries() {
        #expect(HostShell.isQuery("  show"))
        #expect(HostShell.isQuery("stats --json"))
        #expect(!HostShell.isQuery("send launch"))
        #expect(!HostShell.isQuery("# show"))
        #expect(!HostShell.isQuery("showing"))
    }
}
