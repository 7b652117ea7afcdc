import Glibc
import HostSupport
import Testing

@testable import FlowSupervision

/// Where a supervised host's command output begins (``WireProtocol/Capability/commandOutput``), which a
/// `--supervise` prompt needs to draw a reload's service lines above the command typed
/// (``ReloadServiceLinesTerminalTests``).
struct SupervisedCommandOutputTests {
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
