import Glibc
import Testing

/// Plugin code that sets the host's handlers of faults aside (back to `SIG_DFL`, as the CrashyPlugin fixture's
/// `SignalsDefault` manager does, or at its load, as its entry point does when `CRASHY_SIGNALS_DEFAULT_AT_LOAD`
/// is set) has them put back after the command, or the load, with one line saying which: a crash of a plugin's
/// code later is still laid at it. Before, the host died of the signal with no handler of its own to record
/// whose code it was: a thread of the plugin's that crashed after its manager returned (`crashy.later`) was
/// reported as `the host crashed with SIGSEGV`, and nothing was blamed or quarantined. (A crash in a call into
/// the plugin is laid at it by the call's breadcrumb, handler or not.)
struct ReplacedSignalHandlerTests {
    typealias Scenario = SupervisedRunTests.Scenario

    private let replaced = "replaced the host's handlers of SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE and SIGSEGV"

    @Test func handlersACommandSetAsideArePutBackWithALineAndALaterCrashIsLaidAtThePlugin() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send crashy.signalsdefault
            expect top signalsDefault
            send crashy.later
            wait reload crashy 5

            """)

        #expect(
            run.errorLines.filter { $0.contains(" replaced the host's handler") } == [
                "flowhost: warning: plugin code \(replaced) in `send crashy.signalsdefault` (\(script):1); put them "
                    + "back (the host's say whose code crashed, and give the terminal its modes back)",
                // The host restarted after the crash restores the screen, sending the request again.
                "flowhost: warning: plugin code \(replaced) in the start; put them back (the host's say whose code "
                    + "crashed, and give the terminal its modes back)",
            ], "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):4: plugin 'crashy' (\(scenario.crashy)) crashed with SIGSEGV in a background thread, "
                    + "after crashy.Later; quarantined; restarting"
            ], "\(run.standardError)")
    }

    @Test func handlersALoadSetAsideArePutBackWithALineNamingThePluginAndALaterCrashIsLaidAtIt() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send crashy.later
            wait reload crashy 5

            """)
        var environment: [String: String?] = scenario.environment
        environment["CRASHY_SIGNALS_DEFAULT_AT_LOAD"] = "1"
        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise", "--script", script], environment: environment)

        #expect(
            run.errorLines.filter { $0.contains(" replaced the host's handler") } == [
                "flowhost: warning: plugin 'crashy' (\(scenario.crashy)) \(replaced) as it loaded; put them back (the "
                    + "host's say whose code crashed, and give the terminal its modes back)"
            ], "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):2: plugin 'crashy' (\(scenario.crashy)) crashed with SIGSEGV in a background thread, "
                    + "after crashy.Later; quarantined; restarting"
            ], "\(run.standardError)")
    }

    /// At the prompt the terminal is raw; a crash of a plugin's thread there gives the person's modes back only
    /// through the line editor's handler, which the command before had set aside. Before, the terminal was left
    /// raw (no echo, no line editing) after the host died.
    @Test func handlersACommandSetAsideArePutBackAndACrashAtThePromptGivesTheTerminalBack() throws {
        let scenario = try Scenario()
        let shell = try ChildProcess.flowhost(
            ["run", scenario.manifest],
            // Without the runtime's backtracer, which on a terminal waits for a key after a crash.
            environment: scenario.environment.merging(scenario.directory.environment()) { $1 }
                .merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 })
        try shell.waitFor("flowhost> ")
        let terminal = try #require(shell.terminal)

        try shell.send("send crashy.signalsdefault\r")
        try shell.waitFor("flowhost: warning: plugin code \(replaced) in `send crashy.signalsdefault` (<stdin>:")
        try shell.waitFor("flowhost> ")
        try shell.send("send crashy.later\r")
        try shell.waitFor("flowhost> ")
        #expect(try !terminal.isCooked(), "raw at the prompt")

        #expect(try shell.waitForExit() == .signalled(SIGSEGV))
        #expect(try terminal.isCooked(), "\(shell.quotedTranscript)")
    }
}
