import Testing

@testable import FlowTraces

/// `replay` and `graph --trace` of a trace a run is still writing (it holds a lock on the file): each says so,
/// and reads what the run has recorded so far, where they said nothing and replay took the input under way
/// for one the run was stopped or killed in. An empty trace a run has not written the header of yet, among
/// others, is left out as empty so far, not as a run killed before it wrote its header.
@MainActor
struct TraceInProgressReadersTests {
    @Test func replayAndGraphSayTheTraceIsStillBeingWritten() throws {
        let directory = try TemporaryDirectory()
        let environment = directory.cacheEnvironment
        let whole = try directory.demoTrace("whole.jsonl", running: "act signIn\nact submit {\"user\": \"grace\"}\n")
        // The run as it is in its last input: every line but that input's screen, which ends it.
        let lines = try readText(whole).split(separator: "\n")
        let screen = try #require(lines.lastIndex { $0.hasPrefix(#"{"kind":"screen","#) })
        let path = directory.path + "/running.jsonl"
        let writer = try TraceWriter(path: path)
        for line in lines[..<screen] { writer.write(try TraceEvent(line: Array(line.utf8))) }
        writer.flush()
        let notYet = directory.path + "/starting.jsonl"
        let starting = try TraceWriter(path: notYet)

        let replay = try Subprocess.flowhost(["replay", path], environment: environment)
        let graph = try Subprocess.flowhost(
            ["graph", "manifests/demo.json", "--trace", path, "--trace", notYet], environment: environment)

        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(
            replay.errorLines.contains(
                "flowhost: warning: \(path) is still being written by a run: the replay runs what it has recorded so far; replay it again once the run has ended"
            ), "\(replay.errorLines)")
        #expect(
            replay.outputLines.contains(
                #"note: the trace ends in step 2, act submit {"user": "grace"}, which the recorded run is still in: not replayed"#
            ), "\(replay.outputLines)")
        #expect(graph.status == 0, "\(graph.standardError)")
        #expect(
            graph.errorLines == [
                "flowhost: warning: \(notYet) is empty so far (a run is still writing it, and has not written its header yet): the graph leaves it out",
                "flowhost: warning: \(path) is still being written by a run: the graph draws what it has recorded so far; draw it again once the run has ended",
            ])

        // Once the writer has closed the file, what it holds is a run stopped in that input.
        writer.close()
        starting.close()
        let stopped = try Subprocess.flowhost(["replay", path], environment: environment)
        #expect(!stopped.standardError.contains("still being written"), "\(stopped.errorLines)")
        #expect(
            stopped.outputLines.contains(
                #"note: the trace ends in step 2, act submit {"user": "grace"}, which the recorded run did not finish (it was stopped or killed there, or its trace could not be written further: a full disk): not replayed"#
            ), "\(stopped.outputLines)")
    }
}
