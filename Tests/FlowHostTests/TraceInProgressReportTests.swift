import Glibc
import Testing

@testable import FlowTraces

/// `experiments report` of a trace a `--subjects` run is still writing: it said the run had stopped early and
/// its last subject might be cut short, when the run was only part way. A run's trace writer holds a lock on
/// the file while it writes it; the report asks for it, and says the run is still going.
@MainActor
struct TraceInProgressReportTests {
    @Test func aTraceItsRunIsStillWritingIsSaidToBeInProgressNotStopped() throws {
        let directory = try TemporaryDirectory()
        let whole = directory.path + "/whole.jsonl"
        let run = try Subprocess.flowhost([
            "run", Repository.path("manifests/experiment.json"), "--subjects", "4",
            "--script", Repository.path("manifests/experiment.flow"), "--quiet", "--trace", whole,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        // The first three subjects, as a run that has just begun its fourth has written them: the fourth, under
        // way, is not counted.
        let lines = try readText(whole).split(separator: "\n")
        let fourth = try #require(
            lines.firstIndex { $0.hasPrefix(#"{"kind":"session","#) && $0.contains(#""session":4,"#) })
        let path = directory.path + "/running.jsonl"

        let writer = try TraceWriter(path: path)
        for line in lines[...fourth] { writer.write(try TraceEvent(line: Array(line.utf8))) }
        writer.flush()
        let running = try Subprocess.flowhost(["experiments", "report", path])

        #expect(running.status == 0)
        #expect(
            running.errorLines == [
                "flowhost: warning: \(path) is still being written by a run, which has recorded 3 of its 4 subjects so far: the report counts those; report again once the run has ended"
            ])
        #expect(running.standardOutput.contains("3 subjects"), "\(running.standardOutput)")

        // Once the writer has closed the file, what it holds is a run killed there, without its `subjectsEnded`.
        writer.close()
        let stopped = try Subprocess.flowhost(["experiments", "report", path])
        #expect(
            stopped.errorLines == [
                "flowhost: warning: \(path) holds 3 of the 4 subjects its run was to simulate: the run stopped early (killed, or its trace could not be written further: a full disk), and its last subject, subject-0004, may be cut short: the report leaves it out"
            ])
    }

    /// A run's writer writes its buffer in one go, which a reader can find half done: the last line, which no
    /// newline ends yet, is left out rather than said to be a trace cut short (exit 65); and a trace whose
    /// header is not written yet is empty so far, not a run killed before it wrote it.
    @Test func aLineTheRunIsStillWritingIsLeftOutAndAnEmptyTraceIsEmptySoFar() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/running.jsonl"
        let writer = try TraceWriter(path: path)

        let empty = try Subprocess.flowhost(["experiments", "report", path])
        #expect(
            empty.errorLines == [
                "flowhost: \(path): the trace is empty so far: a run is still writing it; read it again once it has written its header"
            ])

        let text = TraceText(weights: [1, 1], goal: "a").text
        _ = try directory.file("running.jsonl", containing: text + #"{"kind":"session","t":9,"ses"#)
        let partial = try Subprocess.flowhost(["experiments", "report", path])
        #expect(partial.status == 0, "\(partial.standardError)")
        #expect(
            partial.errorLines.first?.hasPrefix("flowhost: warning: \(path) is still being written by a run") == true,
            "\(partial.errorLines)")

        writer.close()
        let cut = try Subprocess.flowhost(["experiments", "report", path])
        #expect(cut.status == 65)
        #expect(cut.errorLines.first?.contains("it is the trace's last line, cut short") == true, "\(cut.errorLines)")
    }

    /// Asking leaves the file free: a run may start writing it the moment the report has read it.
    @Test func askingWhetherARunIsWritingTakesNoLock() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("t.jsonl", containing: TraceText(weights: [1, 1], goal: "a").text)

        let reader = try TraceReader(path: path)
        #expect(!reader.isBeingWritten)

        // The reader that asked is still open: a run starts writing the file all the same.
        let writer = try TraceWriter(path: path)
        writer.write(try TraceEvent(line: Array(TraceText(weights: [1, 1], goal: "a").text.utf8.prefix { $0 != 10 })))
        writer.flush()
        #expect(try TraceReader(path: path).isBeingWritten)
        writer.close()
        #expect(try !TraceReader(path: path).isBeingWritten)
    }
}
