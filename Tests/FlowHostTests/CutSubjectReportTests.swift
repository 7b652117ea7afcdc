import FlowKit
import Testing

@testable import FlowTraces

/// `experiments report` of a `--subjects` run killed (or its disk full) in the middle of a subject's script:
/// that subject has no outcome, and counted as exposed and not reached it pulled its variant's conversion down.
/// The report leaves it out, and says so; as it leaves out the subject under way of a trace a run still writes.
@MainActor
struct CutSubjectReportTests {
    @Test func theSubjectARunStoppedInTheMiddleOfIsLeftOut() throws {
        let directory = try TemporaryDirectory()
        let whole = directory.path + "/whole.jsonl"
        let run = try Subprocess.flowhost(
            [
                "run", Repository.path("manifests/experiment.json"), "--subjects", "6", "--script",
                Repository.path("manifests/experiment.flow"), "--quiet", "--trace", whole,
            ], environment: directory.environment())
        try #require(run.status == 0, "\(run.standardError)")
        let lines = try readText(whole).split(separator: "\n")
        // The run as a kill leaves it in the sixth subject's last input: the goal handled, its screen not written.
        let goal = try #require(lines.lastIndex { $0.contains(#""command":"send catalog.detail"#) })
        let screen = try #require(lines[goal...].firstIndex { $0.hasPrefix(#"{"kind":"screen","#) })
        let cut = lines[..<screen].joined(separator: "\n") + "\n"
        let path = try directory.file("killed.jsonl", containing: cut)

        let report = try Subprocess.flowhost(["experiments", "report", path, "--json"])

        #expect(report.status == 0, "\(report.standardError)")
        let document = try JSONValue(parsing: report.standardOutput)
        let variants = try #require(document["experiments"]?[0]?["variants"]?.array)
        #expect(variants.compactMap { $0["exposed"]?.int }.reduce(0, +) == 5)
        #expect(variants.compactMap { $0["reached"]?.int }.reduce(0, +) == 5)
        #expect(
            document["warnings"]
                == [
                    .string(
                        "\(path) holds 5 of the 6 subjects its run was to simulate: the run stopped early (stopped, killed, or its trace could not be written further: a full disk); it stopped in the middle of subject-0006's script, and the report leaves that subject out"
                    )
                ])

        // The same lines in a trace a run holds as it writes it: the sixth is under way, and left out too.
        let running = directory.path + "/running.jsonl"
        let writer = try TraceWriter(path: running)
        for line in lines[..<screen] { writer.write(try TraceEvent(line: Array(line.utf8))) }
        writer.flush()
        defer { writer.close() }
        let inProgress = try Subprocess.flowhost(["experiments", "report", running])
        #expect(
            inProgress.errorLines == [
                "flowhost: warning: \(running) is still being written by a run, which has recorded 5 of its 6 subjects so far: the report counts those; report again once the run has ended"
            ])
        #expect(inProgress.standardOutput.contains("5 subjects exposed"), "\(inProgress.standardOutput)")

        // Whole, the sixth counts.
        let all = try Subprocess.flowhost(["experiments", "report", whole])
        #expect(all.errorLines == [], "\(all.errorLines)")
        #expect(all.standardOutput.contains("6 subjects exposed"), "\(all.standardOutput)")
    }
}
