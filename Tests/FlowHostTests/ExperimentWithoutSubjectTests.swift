import FlowKit
import Foundation
import Testing

/// An experiment whose subject's path is misspelt (`user.idd`) sends every request to the control and exposes
/// no one: `stats` counts those requests, a `--subjects` run warns of them as it ends, and the report says there
/// is no sample-ratio test rather than a chi-square of nothing "as configured" (found by an experiment-author
/// trial).
struct ExperimentWithoutSubjectTests {
    /// manifests/experiment.json with its subject's path misspelt, in `directory`.
    private static func misspelt(in directory: TemporaryDirectory) throws -> String {
        let text = try String(contentsOfFile: Repository.path("manifests/experiment.json"), encoding: .utf8)
        let manifest = text.replacingOccurrences(of: #""subject": "user.id""#, with: #""subject": "user.idd""#)
        #expect(manifest != text, "experiment.json names its subject as this test expects")
        return try directory.file("experiment.json", containing: manifest)
    }

    @Test func aSubjectsRunWarnsThatItsRequestsFoundNoSubjectAndTheReportTestsNothing() throws {
        let directory = try TemporaryDirectory()
        let manifest = try Self.misspelt(in: directory)
        let trace = directory.path + "/t.jsonl"
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]

        let run = try Subprocess.flowhost(
            [
                "run", manifest, "--subjects", "4", "--script", Repository.path("manifests/experiment.flow"), "--trace",
                trace,
            ],
            environment: environment)
        let report = try Subprocess.flowhost(["experiments", "report", trace], environment: environment)
        let json = try Subprocess.flowhost(["experiments", "report", trace, "--json"], environment: environment)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: warning: experiment 'create-flow': 4 requests found no subject at 'user.idd' in the context, so they went to the control, classic, and exposed no one"
            ])
        #expect(run.outputLines.dropFirst().first == "exposures: create-flow: classic 0, express 0")
        #expect(report.status == 0)
        #expect(
            report.outputLines.contains(
                "  sample ratio: 0 : 0 exposed for weights 50 : 50; no sample-ratio test: no subject was exposed"),
            "\(report.standardOutput)")
        let ratio = try JSONValue(parsing: json.standardOutput)["experiments"]?[0]?["sampleRatio"]
        #expect(ratio?["tested"] == false)
        #expect(ratio?["p"] == .null)
        #expect(ratio?["reason"] == "no subject was exposed")
    }

    @Test func statsCountsTheRequestsWithoutASubject() throws {
        let directory = try TemporaryDirectory()
        let manifest = try Self.misspelt(in: directory)

        let run = try Subprocess.flowhost(
            ["run", manifest, "--quiet"],
            input: "act signIn\nact submit {\"user\": \"ada\"}\nact create\nstats\nstats --json\n",
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.outputLines.contains(
                "  experiment create-flow: exposures classic 0, express 0, 1 request without a subject"),
            "\(run.standardOutput)")
        let json = try run.outputLines.last { $0.hasPrefix("{") }.map { try JSONValue(parsing: $0) }
        #expect(json?["withoutSubject"] == ["create-flow": 1])
    }

    @Test func aSubjectsRunWhoseRequestsAllHadASubjectWarnsOfNothing() throws {
        let directory = try TemporaryDirectory()
        let run = try Subprocess.flowhost(
            [
                "run", Repository.path("manifests/experiment.json"), "--subjects", "4", "--script",
                Repository.path("manifests/experiment.flow"), "--quiet",
            ],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 0)
        #expect(run.standardError.isEmpty, "\(run.standardError)")
    }
}
