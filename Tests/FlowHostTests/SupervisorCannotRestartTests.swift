import FlowKit
import Glibc
import Testing

/// A supervisor that cannot start the host it restarts after a crash (its executable removed since, as a
/// rebuild or a cleaned build directory does) says why and ends the run; its trace says no host followed. The
/// trace had said `restarting` and nothing after, which a replay read as a host restored at the snapshot.
struct SupervisorCannotRestartTests {
    @Test func aRestartThatCannotStartAHostIsSaidAndTheTraceSaysNoneFollowed() throws {
        let state = try TemporaryDirectory()
        // A copy, written as every test writes a file (closed on `exec`: a process another test forks meanwhile
        // does not keep it open for writing, which would leave it busy).
        let copy = try state.file("flowhost", containing: try BuildProducts.bytes(of: "flowhost"))
        try #require(chmod(copy, 0o755) == 0)
        _ = try state.file("libFlowKit.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        let trace = state.path + "/t.jsonl"
        // `--trust`: a probe would start the copy too.
        let shell = try ChildProcess(
            executable: copy,
            arguments: [
                "run", Repository.path("manifests/crashy.json"), "--supervise", "--trust", "--trace", trace,
                "--plugin-path", BuildProducts.directory,
            ], connection: .terminal(controlling: true), environment: state.environment())
        try shell.waitFor("flowhost> ")
        #expect(unlink(copy) == 0)

        try shell.send("send crashy.trap\r")

        let cannot = "flowhost: cannot supervise: cannot start \(copy): No such file or directory"
        try shell.waitFor("cannot supervise")
        #expect(try shell.waitForExit() == .exited(70))
        let rows = TerminalScreen(shell.transcript, width: 10_000).rows
        #expect(rows.last { !$0.isEmpty } == cannot, "\(rows)")
        let ends = try readText(trace).split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            .filter { $0["kind"] == "hostEnded" }
        #expect(ends.map { $0["ending"] } == ["crash", "ended"])
        #expect(ends.map { $0["restarting"] } == [true, false])
        #expect(ends.last?["error"]?.string == cannot)
    }
}
