import FlowKit
import Testing

@testable import FlowTraces

/// `experiments report` of a `--subjects` run killed (or its disk full) in the middle of a subject's script: that
/// subject has no outcome, and counted as exposed and not reached it would pull its variant's conversion down.
/// A run that stops as it means to ends its trace with a `subjectsEnded` line; a trace without one was cut, and
/// the report leaves its last subject out, as it leaves out the subject under way of a trace a run still writes.
@MainActor
struct CutSubjectReportTests {
    /// A trace of 6 subjects, whole, and its lines.
    private func recorded(in directory: TemporaryDirectory) throws -> (path: String, lines: [Substring]) {
        let whole = directory.path + "/whole.jsonl"
        let run = try Subprocess.flowhost(
            [
                "run", Repository.path("manifests/experiment.json"), "--subjects", "6", "--script",
                Repository.path("manifests/experiment.flow"), "--quiet", "--trace", whole,
            ], environment: directory.environment())
        try #require(run.status == 0, "\(run.standardError)")
        return (whole, try readText(whole).split(separator: "\n"))
    }

    /// The figures of the report of `path`: subjects exposed and subjects who reached the goal, over the variants.
    private func figures(_ path: String) throws -> (exposed: Int, reached: Int, warnings: JSONValue?) {
        let report = try Subprocess.flowhost(["experiments", "report", path, "--json"])
        try #require(report.status == 0, "\(report.standardError)")
        let document = try JSONValue(parsing: report.standardOutput)
        let variants = try #require(document["experiments"]?[0]?["variants"]?.array)
        return (
            variants.compactMap { $0["exposed"]?.int }.reduce(0, +),
            variants.compactMap { $0["reached"]?.int }.reduce(0, +), document["warnings"]
        )
    }

    @Test func aWholeRunEndsItsTraceWithHowItStopped() throws {
        let directory = try TemporaryDirectory()
        let (whole, lines) = try recorded(in: directory)
        let last = try TraceEvent(line: Array(try #require(lines.last).utf8))
        #expect(last.kind == .subjectsEnded)
        #expect(last["ran"] == 6 && last["ending"] == "completed" && last.session == 6)
        let report = try figures(whole)
        #expect(report.exposed == 6 && report.reached == 6 && report.warnings == [])
    }

    @Test func theLastSubjectOfACutTraceIsLeftOut() throws {
        let directory = try TemporaryDirectory()
        let (_, lines) = try recorded(in: directory)
        // As a kill leaves it, in the sixth subject's last input: the goal handled, the rest not written.
        let goal = try #require(lines.lastIndex { $0.contains(#""command":"send catalog.detail"#) })
        let handled = try #require(lines[goal...].firstIndex { $0.hasPrefix(#"{"kind":"handled","#) })
        let killed = try directory.file(
            "killed.jsonl", containing: lines[...handled].joined(separator: "\n") + "\n")
        let report = try figures(killed)
        #expect(report.exposed == 5 && report.reached == 5)
        #expect(
            report.warnings
                == [
                    .string(
                        "\(killed) holds 5 of the 6 subjects its run was to simulate: the run stopped early (killed, or its trace could not be written further: a full disk), and its last subject, subject-0006, may be cut short: the report leaves it out"
                    )
                ])

        // Killed right after the sixth subject's last line, before the run's last: no trace can tell that from a
        // cut, and the sixth is left out too, as documented.
        let between = try directory.file(
            "between.jsonl", containing: lines.dropLast().joined(separator: "\n") + "\n")
        #expect(try figures(between).exposed == 5)

        // Format 2 had no `subjectsEnded` line, so a trace of it cannot tell: every subject counts, the sixth
        // exposed and cut before its goal, as before.
        let older = try directory.file(
            "older.jsonl",
            containing: lines[..<goal].joined(separator: "\n").replacing(#""version":3,"#, with: #""version":2,"#)
                + "\n")
        let old = try figures(older)
        #expect(old.exposed == 6 && old.reached == 5 && old.warnings == [])
    }

    /// Any `subjectsEnded` line ends the run, also one whose `ending` a later flowhost may add; and one a run
    /// stopped before its first subject writes at session 0, the header's, is no session of its own.
    @Test func anyEndLineEndsTheRunAndOneBeforeAnySubjectIsNoSession() throws {
        let directory = try TemporaryDirectory()
        let (_, lines) = try recorded(in: directory)
        let later = try directory.file(
            "later.jsonl",
            containing: lines.joined(separator: "\n").replacing(#""ending":"completed""#, with: #""ending":"paused""#)
                + "\n")
        let report = try figures(later)
        #expect(report.exposed == 6 && report.reached == 6 && report.warnings == [])

        let header = String(try #require(lines.first))
        let none = try directory.file(
            "none.jsonl",
            containing: header + "\n"
                + #"{"kind":"subjectsEnded","t":9,"session":0,"input":0,"ran":0,"ending":"stopped"}"# + "\n")
        let stopped = try Subprocess.flowhost(["experiments", "report", none])
        #expect(
            stopped.errorLines.first
                == "flowhost: warning: \(none) holds 0 of the 6 subjects its run was to simulate: the run was stopped by Ctrl-C",
            "\(stopped.standardError)")
    }

    @Test func theSubjectUnderWayOfATraceBeingWrittenIsLeftOut() throws {
        let directory = try TemporaryDirectory()
        let (_, lines) = try recorded(in: directory)
        let goal = try #require(lines.lastIndex { $0.contains(#""command":"send catalog.detail"#) })
        // The same lines in a trace a run holds as it writes it: the sixth subject is under way.
        let running = directory.path + "/running.jsonl"
        let writer = try TraceWriter(path: running)
        for line in lines[...goal] { writer.write(try TraceEvent(line: Array(line.utf8))) }
        writer.flush()
        defer { writer.close() }
        let report = try Subprocess.flowhost(["experiments", "report", running])
        #expect(
            report.errorLines == [
                "flowhost: warning: \(running) is still being written by a run, which has recorded 5 of its 6 subjects so far: the report counts those; report again once the run has ended"
            ])
        #expect(report.standardOutput.contains("5 subjects exposed"), "\(report.standardOutput)")
    }
}
