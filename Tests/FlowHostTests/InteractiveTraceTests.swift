import Glibc
import Testing

/// `flowhost run --trace FILE` at a prompt, ended by a signal as a person or a system ends it: the terminal
/// closed (SIGHUP), a stop from a service manager (SIGTERM), Ctrl-C while a command runs (SIGINT). The trace
/// keeps every input finished before it, whole, as docs/traces.md promises of a run stopped or killed.
struct InteractiveTraceTests {
    @Test(arguments: [SIGHUP, SIGTERM, SIGINT])
    func aSignalAtThePromptLeavesTheInputsTypedBeforeItInTheTrace(signal: Int32) throws {
        let directory = try TemporaryDirectory()
        let trace = directory.path + "/session.jsonl"
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--trace", trace],
            connection: .terminal(controlling: true), environment: directory.environment())
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        try shell.send("open demo://items/2\r")
        try shell.waitFor("top: signIn")
        try shell.waitFor("flowhost> ")

        shell.signal(signal)

        #expect(try shell.waitForExit() == .signalled(signal))
        let lines = try readText(trace).split(separator: "\n", omittingEmptySubsequences: false)
        // Whole lines only: the file ends with a newline.
        #expect(lines.last == "")
        #expect(lines.contains { $0.contains(#""kind":"input""#) && $0.contains(#""command":"open demo://items/2""#) })
        // The screen the input left, which the trace writes as each input's last line.
        #expect(lines.filter { $0.contains(#""kind":"screen""#) }.count == 2)
    }
}
