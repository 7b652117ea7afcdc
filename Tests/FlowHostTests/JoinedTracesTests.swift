import FlowKit
import Testing

/// Files of traces joined whole (`cat a.jsonl b.jsonl`): a recording joined twice is read once by graph, report
/// and replay alike, with a warning naming the file; each part is replayed as its own header says it was
/// recorded, and parts of runs of different manifests are refused by replay, naming the file and the part.
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

    /// A redacted recording joined before one that is not: the second part's screens show the value, and were
    /// replayed with the first part's redaction, which left it out, so the replay diverged at its first screen.
    @Test func eachJoinedPartIsReplayedAsItsOwnHeaderSaysItWasRecorded() throws {
        let directory = try TemporaryDirectory()
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let redacted = try Self.record(
            directory, "redacted", "manifests/demo.json", "manifests/demo.flow", environment, "--trace-redact", "user",
            "--trace-redact", "currentUser")
        let plain = try Self.record(directory, "plain", "manifests/demo.json", "manifests/demo.flow", environment)
        let joined = try directory.file("joined.jsonl", containing: try readText(redacted) + readText(plain))

        let replay = try Subprocess.flowhost(["replay", joined, "--json"], environment: environment)

        #expect(replay.status == 0, "\(replay.standardOutput)")
        let document = try JSONValue(parsing: replay.standardOutput)
        #expect(document["result"] == "identical" && document["sessions"] == 2, "\(replay.standardOutput)")
    }

    /// A replay runs a file against one manifest: a part recorded with another is refused in one line naming
    /// the file, the line and the part, exit 65, unless --manifest chooses one for them all.
    @Test func partsRecordedWithDifferentManifestsAreRefusedNamingTheFileAndThePart() throws {
        let directory = try TemporaryDirectory()
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let demo = try Self.record(directory, "demo", "manifests/demo.json", "manifests/demo.flow", environment)
        let experiment = try Self.record(
            directory, "experiment", "manifests/experiment.json", "manifests/experiment.flow", environment)
        let demoText = try readText(demo)
        let joined = try directory.file("joined.jsonl", containing: demoText + readText(experiment))
        let line = demoText.split(separator: "\n").count + 1
        let manifest = { (name: String) in Repository.path("manifests/\(name).json") }

        let replay = try Subprocess.flowhost(["replay", joined], environment: environment)

        #expect(replay.status == 65)
        #expect(replay.standardOutput.isEmpty)
        #expect(
            replay.errorLines.last
                == "flowhost: \(joined):\(line): the trace joined here (part 2 of the file) was recorded with the manifest \(manifest("experiment")), not \(manifest("demo")) as the first part: a replay runs a file against one manifest; replay each recording as a file of its own, or give --manifest MANIFEST for them all"
        )
        let json = try Subprocess.flowhost(["replay", joined, "--json"], environment: environment)
        #expect(json.status == 65)
        #expect(try JSONValue(parsing: json.standardOutput)["errors"]?[0]?["kind"] == "trace")
        let chosen = try Subprocess.flowhost(
            ["replay", joined, "--manifest", "manifests/demo.json", "--json"], environment: environment)
        #expect(chosen.status == 1, "the experiment's part diverges against the demo: \(chosen.standardOutput)")
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
