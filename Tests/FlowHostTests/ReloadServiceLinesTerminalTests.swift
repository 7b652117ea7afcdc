import Glibc
import Testing

/// The lines of a `--watch` reload's async service, at a terminal's prompt: a command typed while the service
/// still stops waits for it (``HostShell/perform(_:)``), and the lines that come meanwhile go above the command
/// typed, as if the person had waited, not under it, where they read as that command's output.
struct ReloadServiceLinesTerminalTests {
    /// A watched manifest with welcome and the hangy plugin's `SlowStop` service, from a copy of its library
    /// that ``rebuild()`` replaces as a linker does; the service's stop waits for the file `go` names.
    struct Scenario {
        let plugins: TemporaryDirectory
        let directory: TemporaryDirectory
        let library: String
        let shell: ChildProcess

        /// - Parameter arguments: After `run MANIFEST --watch` (`--supervise`).
        init(go: String, serviceTimeout: String = "", arguments: [String] = []) throws {
            plugins = try TemporaryDirectory()
            library = try plugins.file("libHangyPlugin.so", containing: BuildProducts.bytes(of: "libHangyPlugin.so"))
            directory = try TemporaryDirectory()
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            let manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "hangy": "\(library)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}],
                     "services": [{"plugin": "hangy", "service": "SlowStop"}],
                     \(serviceTimeout.isEmpty ? "" : "\"serviceTimeout\": \(serviceTimeout), ")"start": ["launch"]}
                    """)
            var environment = directory.environment()
            environment["HANGY_STOP_GO"] = directory.path + "/" + go
            shell = try ChildProcess.flowhost(["run", manifest, "--watch"] + arguments, environment: environment)
            try shell.waitFor("top: welcome")
            try shell.waitFor("flowhost> ")
        }

        /// Renames a new build over the library.
        func rebuild() throws {
            let rebuilt = try BuildProducts.bytes(of: "libHangyPlugin.so") + [UInt8](repeating: 0, count: 16)
            let staging = try plugins.file("libHangyPlugin.so.tmp", containing: rebuilt)
            try #require(rename(staging, library) == 0)
        }
    }

    /// The hangy plugin's `SlowStop` service stops once the test makes its file: the reload's `service ...
    /// stopped` line came after `flowhost> stack`, before the command's own lines. The same at a `--supervise`
    /// prompt, whose supervisor owns the terminal and the line editor while the host prints the lines, and
    /// where the host says where a command's output begins (``WireProtocol/Capability/commandOutput``).
    @Test(arguments: [[], ["--supervise"]])
    func serviceLinesThatComeWhileACommandWaitsGoAboveIt(arguments: [String]) throws {
        let scenario = try Scenario(go: "go", arguments: arguments)
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

    /// A stop that takes longer than `serviceTimeout` is said on standard error, above the prompt like the
    /// reload's other lines: it was written where the cursor was, after the prompt (`flowhost> flowhost: service
    /// ...`), and the prompt was not drawn again under it.
    @Test(arguments: [[], ["--supervise"]])
    func aServiceProblemAtThePromptGoesAboveIt(arguments: [String]) throws {
        let scenario = try Scenario(go: "never", serviceTimeout: "0.2", arguments: arguments)
        let shell = scenario.shell

        try scenario.rebuild()
        try shell.waitFor("did not stop within 0.2 s")
        try shell.waitFor("service hangy.SlowStop started")
        try shell.waitFor("flowhost> ")
        let rows = TerminalScreen(shell.transcript).rows
        // Wrapped at 80 columns: two rows.
        let problem =
            "flowhost: service 'hangy.SlowStop' did not stop within 0.2 s; raise serviceTimeout if it needs longer"
        #expect(rows.suffix(4).joined() == problem + "  service hangy.SlowStop startedflowhost>", "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// The same while a command typed waits for the stop: the problem goes above the command's line, held until
    /// the command's output begins. At a `--supervise` prompt, where the host's standard error reaches the
    /// terminal through the supervisor, it was written under the held line, which the next line printed above
    /// then drew a second time.
    @Test(arguments: [[], ["--supervise"]])
    func aServiceProblemWhileACommandWaitsGoesAboveItsLine(arguments: [String]) throws {
        let scenario = try Scenario(go: "never", serviceTimeout: "1", arguments: arguments)
        let shell = scenario.shell

        try scenario.rebuild()
        try shell.waitFor("reloaded plugin 'hangy': generation 2")
        try shell.waitFor("flowhost> ")
        try shell.send("stack\r")
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")

        let rows = TerminalScreen(shell.transcript, width: 10_000).rows
        let problem =
            "flowhost: service 'hangy.SlowStop' did not stop within 1 s; raise serviceTimeout if it needs longer"
        #expect(
            Array(rows.drop { $0 != problem })
                == [
                    problem, "  service hangy.SlowStop started", "flowhost> stack", "  stack: welcome",
                    "  top: welcome",
                    "flowhost>",
                ], "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0), "it printed: \(shell.quotedTranscript)")
    }
}
