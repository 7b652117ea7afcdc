import Glibc
import Testing

/// `kill -QUIT` ends `flowhost run` by SIGQUIT (status 131 in a shell), promptly, whose input is piped from a
/// process that keeps the pipe open, with `--supervise` too. The Swift runtime's backtracer took SIGQUIT, printed
/// `Program crashed` and returned, and flowhost went on running until its input ended. (At a prompt, the
/// terminal's modes given back too: `LineEditorTerminalTests`.)
struct QuitSignalTests {
    @Test(arguments: [[], ["--supervise"]])
    func aPipedRunEndsBySIGQUITThoughItsInputStaysOpen(options: [String]) throws {
        let state = try TemporaryDirectory()
        let run = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")] + options, connection: .pipes,
            environment: state.environment())
        // The start probes the four plugins, each in a child process: slow under a sanitizer on a loaded machine.
        try run.waitFor("top: welcome", within: .seconds(30))
        try run.send("stack\n")
        try run.waitFor("stack: welcome")

        run.signal(SIGQUIT)

        #expect(try run.waitForExit(within: .seconds(5)) == .signalled(SIGQUIT))
        #expect(!String(decoding: run.transcript, as: UTF8.self).contains("Program crashed"))
    }
}
