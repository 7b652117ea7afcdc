import FlowKit
import Testing

/// Files of traces joined whole (`cat a.jsonl b.jsonl`): a recording joined twice is read once by graph, report
/// and replay alike, with a warning naming the file.
struct JoinedTracesTests {
    /// `cat a.jsonl a.jsonl`: one recording twice, which `DuplicateTrace` (first lines only) did not see, so
    /// graph counted every transition twice and replay replayed every session twice.
    @Test func aRecordingJoinedTwiceIsReadOnceByGraphReportAndReplayWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let demo = try Self.record(directory, "demo", "manifests/demo.json", "manifests/demo.flow", environment)
        let text = try readText(demo)
        let joined = try directory.file("joined.jsonl", containing: text + text)
        let again = text.split(separator: "\n").count + 1
        let warning =
            "flowhost: warning: \(joined):\(again): the trace joined here holds the same recording as line 1 (its header is the same: a copy); it is read once, there"

        let once = try Subprocess.flowhost(
            ["graph", "manifests/demo.json", "--no-plugins", "--format", "json", "--trace", demo],
            environment: environment)
        let twice = try Subprocess.flowhost(
            ["graph", "manifests/demo.json", "--no-plugins", "--format", "json", "--trace", joined],
            environment: environment)
        #expect(once.status == 0 && twice.status == 0, "\(twice.standardError)")
        #expect(try JSONValue(parsing: twice.standardOutput) == (try JSONValue(parsing: once.standardOutput)))
        #expect(twice.errorLines == [warning])

        let replay = try Subprocess.flowhost(["replay", joined, "--json"], environment: environment)
        #expect(replay.status == 0, "\(replay.standardOutput)")
        let replayed = try JSONValue(parsing: replay.standardOutput)
        #expect(replayed["sessions"] == 1 && replayed["result"] == "identical", "\(replay.standardOutput)")
        #expect(replay.errorLines.contains(warning), "\(replay.standardError)")

        let experiment = try Self.record(
            directory, "experiment", "manifests/experiment.json", "manifests/experiment.flow", environment,
            "--subjects", "4")
        let experimentText = try readText(experiment)
        let joinedExperiment = try directory.file(
            "joined-experiment.jsonl", containing: experimentText + experimentText)
        let report = try Subprocess.flowhost(
            ["experiments", "report", joinedExperiment, "--json"], environment: environment)
        let single = try Subprocess.flowhost(["experiments", "report", experiment, "--json"], environment: environment)
        #expect(report.status == 0, "\(report.standardError)")
        let document = try JSONValue(parsing: report.standardOutput)
        let line = experimentText.split(separator: "\n").count + 1
        let reportWarning =
            "\(joinedExperiment):\(line): the trace joined here holds the same recording as line 1 (its header is the same: a copy); it is read once, there"
        #expect(document["warnings"] == [.string(reportWarning)])
        #expect(document["experiments"] == (try JSONValue(parsing: single.standardOutput))["experiments"])
        #expect(report.errorLines == ["flowhost: warning: " + reportWarning])
    }

    // MARK: - Test Helpers

    /// A trace of `script` against `manifest` in `directory`, named `name.jsonl`.
    private static func record(
        _ directory: TemporaryDirectory, _ name: String, _ manifest: String, _ script: String,
        _ environment: [String: String], _ options: String...
    ) throws -> String {
        let path = directory.path + "/\(name).jsonl"
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script, "--trace", path, "--quiet"] + options, environment: environment)
        try #require(run.status == 0, "\(run.standardError)")
        return path
    }
}
