import Glibc
import HostSupport
import Testing

@testable import FlowSupervision

/// The lines of a `--watch` reload's async service at a `--supervise` prompt: the supervisor owns the terminal
/// and the line editor, the host prints them, and the host says where a command's output begins
/// (``WireProtocol/Capability/commandOutput``), so that the lines that come before go above the command typed,
/// as without `--supervise`, and not under it, where they read as that command's output.
struct SupervisedReloadServiceLinesTerminalTests {
    /// The hangy plugin's `SlowStop` service stops once the test makes its file, after `stack` was typed: its
    /// lines came under `flowhost> stack`, before the command's own lines.
    @Test func serviceLinesThatComeWhileACommandWaitsGoAboveIt() throws {
        let scenario = try ReloadServiceLinesTerminalTests.Scenario(go: "go", arguments: ["--supervise"])
        let shell = scenario.shell

        try scenario.rebuild()
        try shell.waitFor("reloaded plugin 'hangy': generation 2")
        try shell.waitFor("flowhost> ")
        // The old service has not stopped: the command, once its line has ended, waits for it.
        try shell.send("stack\r")
        try shell.waitFor("flowhost> stack")
        try shell.waitFor("\r\n")
        close(open(scenario.directory.path + "/go", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600))

        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let rows = TerminalScreen(shell.transcript).rows
        let reloaded = try #require(rows.firstIndex { $0.hasPrefix("  reloaded plugin 'hangy': generation 2") })
        #expect(
            Array(rows[(reloaded + 1)...].drop { !$0.hasPrefix("  service hangy.SlowStop") })
                == [
                    "  service hangy.SlowStop stopped", "  service hangy.SlowStop started", "flowhost> stack",
                    "  stack: welcome", "  top: welcome", "flowhost>",
                ], "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0), "it printed: \(shell.quotedTranscript)")
    }

    /// A host whose supervisor is of an earlier build, which does not answer where a command's output begins,
    /// prints it without waiting for an answer; one whose supervisor answers takes the answer for none of its
    /// commands.
    @Test func aHostWaitsForTheAnswerOnlyFromASupervisorThatGivesIt() throws {
        for capabilities in ["supervised-host", "command-output,supervised-host"] {
            let directory = try TemporaryDirectory()
            // Its messages (descriptor 3) to /dev/null: the test plays the supervisor on its standard input.
            let host = try ChildProcess(
                executable: "/bin/sh",
                arguments: [
                    "-c", "exec \"$0\" run \"$1\" 3>/dev/null", try BuildProducts.path(of: "flowhost"),
                    Repository.path("manifests/demo.json"),
                ],
                connection: .pipes,
                environment: [
                    "XDG_CACHE_HOME": directory.path, SupervisorLink.directoryVariable: directory.path,
                    SupervisorLink.tokenVariable: "start",
                    // Commands on standard input, as from a supervisor without `command-descriptor`.
                    WireProtocol.environmentVariable: "\(WireProtocol.version) \(capabilities)",
                ])
            let answered = capabilities.contains("command-output")
            try host.send("1\tone\tstack\n" + (answered ? "one\n" : "") + "2\ttwo\tstats\n" + (answered ? "two\n" : ""))
            try host.waitFor("stack: welcome")
            try host.waitFor("plugins: 0 reloads")
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0), "it printed: \(host.quotedTranscript)")
            #expect(!host.quotedTranscript.contains("error"), "\(capabilities): \(host.quotedTranscript)")
        }
    }
}
