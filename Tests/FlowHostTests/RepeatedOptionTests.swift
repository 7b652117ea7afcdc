import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// An option that takes one value, given twice, is a wrong command line: the last one won, and the first was
/// left unused without a word (`experiments report --goal a --goal b` reported for `b`, exit 0).
@MainActor
struct RepeatedOptionTests {
    @Test func aGoalGivenTwiceIsAUsageErrorNamingTheOption() throws {
        let directory = try TemporaryDirectory()
        let trace = try directory.file("t.jsonl", containing: TraceText(weights: [1, 1], goal: "a").text)
        let problem = "--goal is given twice, as 'a' and as 'b': give it once"

        let text = try Subprocess.flowhost(["experiments", "report", trace, "--goal", "a", "--goal=b"])
        #expect(text.status == 64)
        #expect(text.standardOutput.isEmpty)
        #expect(text.errorLines == ["flowhost: \(problem)", FlowHostCommandLine.experiments.usage])

        // With --json, the document the command's other usage errors give.
        let json = try Subprocess.flowhost(["experiments", "report", "--json", trace, "--goal", "a", "--goal", "b"])
        #expect(json.status == 64)
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(document["errors"]?[0]?["kind"] == "usage")
        #expect(document["errors"]?[0]?["message"] == .string(problem))
        #expect(document["experiments"] == [] && document["warnings"] == [] && document["goal"] == .null)
    }

    /// The same for every command: a repeatable option (`--plugin-path DIR...`) may be given again, one that
    /// is not (`validate --max-manifest-size`) may not.
    @Test func onlyARepeatableOptionMayBeGivenTwice() throws {
        let twice = try Subprocess.flowhost([
            "validate", "manifests/demo.json", "--max-manifest-size", "1000000", "--max-manifest-size", "2000000",
        ])
        #expect(twice.status == 64)
        #expect(
            twice.errorLines.first
                == "flowhost: --max-manifest-size is given twice, as '1000000' and as '2000000': give it once")

        let paths = try Subprocess.flowhost([
            "validate", "manifests/demo.json", "--plugin-path", "/tmp", "--plugin-path", "/tmp",
        ])
        #expect(paths.status != 64, "\(paths.errorLines)")
    }
}
