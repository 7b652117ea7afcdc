import FlowKit
import Testing

@testable import FlowTraces

/// A `--subjects` run traced with `--trace-redact` on the experiment's subject path: the simulated subjects
/// stand for people, so the trace holds each one's pseudonym, in its `session` line as in its exposures, and
/// never the plain id.
@MainActor
struct RedactedSubjectsTests {
    @Test func aRedactedSubjectsTraceHoldsNoPlainSubjectIdAndStillReports() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/redacted.jsonl"
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let run = try Subprocess.flowhost(
            [
                "run", "manifests/experiment.json", "--subjects", "6", "--script", "manifests/experiment.flow",
                "--trace", path, "--trace-redact", "user",
            ], environment: environment)
        try #require(run.status == 0, "\(run.standardError)")

        let text = try readText(path)
        #expect(SubjectRunner.subjects(6).filter(text.contains) == [], "plain subject ids in the trace")
        // Each session's subject is the pseudonym its exposure has: the two still join, on the pseudonym.
        var sessions: [Int: String] = [:]
        var exposures: [Int: String] = [:]
        for line in text.split(separator: "\n") {
            let event = try JSONValue(parsing: String(line))
            guard let session = event["session"]?.int, let subject = event["subject"]?.string else { continue }
            if event["kind"] == "session" { sessions[session] = subject }
            if event["kind"] == "exposure" { exposures[session] = subject }
        }
        #expect(sessions.count == 6)
        #expect(sessions == exposures)
        #expect(sessions.values.allSatisfy { $0.wholeMatch(of: /subject-[0-9a-f]{12}/) != nil }, "\(sessions)")

        let report = try Subprocess.flowhost(
            ["experiments", "report", path, "--json"], environment: environment)
        #expect(report.status == 0, "\(report.standardError)")
        let document = try JSONValue(parsing: report.standardOutput)
        #expect(document["experiments"]?[0]?["exposed"] == 6, "\(report.standardOutput)")
        #expect(document["warnings"] == [])
    }
}
