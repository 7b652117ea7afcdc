import FlowKit
import Glibc
import Testing

@testable import FlowTraces

/// Ctrl-C in a `run --subjects` on a terminal: the subject under way runs its script to the end, then the run
/// stops, erases its progress line, says how far it got, and exits 130, with every subject before it whole in
/// the trace. Ctrl-C ended the program at once: the trace lost its last block and cut its last subject short,
/// and the progress line stayed on the screen. A second Ctrl-C ends it by the signal, as before, also while
/// the subject under way does not end.
struct SubjectsRunInterruptTests {
    @Test func ctrlCStopsTheRunBetweenTwoSubjectsWithTheTraceWhole() throws {
        let directory = try TemporaryDirectory()
        let trace = directory.path + "/t.jsonl"
        let run = try ChildProcess.flowhost(
            [
                "run", Repository.path("manifests/experiment.json"), "--subjects", "1000000", "--script",
                Repository.path("manifests/experiment.flow"), "--trace", trace,
            ], environment: directory.environment())
        try run.waitFor("subjects: ")

        try run.send("\u{03}")

        #expect(try run.waitForExit(within: .seconds(30)) == .exited(130))
        let output = String(decoding: run.transcript, as: UTF8.self)
        let summary = try #require(
            output.firstMatch(
                of:
                    /ran .*experiment\.flow for 1000000 subjects \(.*\): stopped by Ctrl-C after (\d+) subjects? ran to the end/
            ),
            "\(run.quotedTranscript)")
        let ran = try #require(Int(summary.1))
        // The progress line erased before the summary: nothing of it is left on the summary's line.
        #expect(output.contains("\r\u{1B}[K" + summary.0), "\(run.quotedTranscript)")
        let lines = try readText(trace).split(separator: "\n")
        let sessions = lines.filter { $0.hasPrefix(#"{"kind":"session","#) }
        #expect(sessions.count == ran)
        // Each subject whole: its last input, the goal, and the screen it left.
        let goals = lines.filter { $0.contains(#""kind":"input""#) && $0.contains(#""command":"send catalog.detail"#) }
        #expect(goals.count == ran)
        let lastGoal = try #require(lines.lastIndex { $0.contains(#""command":"send catalog.detail"#) })
        #expect(lines[lastGoal...].contains { $0.hasPrefix(#"{"kind":"screen","#) })
        // The trace's last line says how the run stopped, so the report counts every subject and says why.
        let end = try TraceEvent(line: Array(try #require(lines.last).utf8))
        #expect(end.kind == .subjectsEnded && end["ending"] == "stopped" && end["ran"] == .number(Double(ran)))
        let report = try Subprocess.flowhost(["experiments", "report", trace, "--json"])
        #expect(report.status == 0)
        let document = try JSONValue(parsing: report.standardOutput)
        #expect(document["experiments"]?[0]?["exposed"] == .number(Double(ran)))
        #expect(
            document["warnings"]
                == [
                    .string(
                        "\(trace) holds \(ran) of the 1000000 subjects its run was to simulate: the run was stopped by Ctrl-C"
                    )
                ])
    }

    /// `--quiet` prints no summary, so the line saying the run was stopped, and after how many subjects, is a
    /// warning there: a quiet run stopped by Ctrl-C said nothing at all.
    @Test func aQuietRunStoppedByCtrlCSaysSoAndHowFarItGot() throws {
        let directory = try TemporaryDirectory()
        let script = Repository.path("manifests/experiment.flow")
        let run = try ChildProcess.flowhost(
            [
                "run", Repository.path("manifests/experiment.json"), "--subjects", "1000000", "--script", script,
                "--quiet",
            ],
            environment: directory.environment())
        try run.waitFor("subjects: ")

        try run.send("\u{03}")

        #expect(try run.waitForExit(within: .seconds(30)) == .exited(130))
        let output = String(decoding: run.transcript, as: UTF8.self)
        let ran = try #require(output.firstMatch(of: /after (\d+) subjects? ran/), "\(run.quotedTranscript)").1
        // On a line of its own, the progress line erased before it, and the last thing said.
        #expect(
            output.hasSuffix(
                "\r\u{1B}[Kflowhost: \(script): stopped by Ctrl-C after \(ran) subject\(ran == "1" ? "" : "s") ran to the end\r\n"
            ),
            "\(run.quotedTranscript)")
    }

    @Test func aSecondCtrlCEndsTheRunBySIGINTWhileASubjectDoesNotEnd() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("wait.flow", containing: "wait reload catalog 60\n")
        let run = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/experiment.json"), "--subjects", "2", "--script", script],
            environment: directory.environment())
        // Nothing is printed before the first subject has run: it is waiting once the run has started.
        #expect(throws: TestFailure.self) { try run.waitForExit(within: .seconds(3)) }

        try run.send("\u{03}")
        // Taken: the subject under way goes on waiting.
        #expect(throws: TestFailure.self) { try run.waitForExit(within: .seconds(1)) }
        try run.send("\u{03}")

        #expect(try run.waitForExit() == .signalled(SIGINT))
    }
}
