import Glibc
import Testing

/// A fault in plugin code in a run without `--supervise` gets the Swift runtime's crash report and ends flowhost
/// by its signal, whether or not the fault would happen again when the report's handler returns: the handler in
/// front of the report's (which tells a fault from a signal another process sent, `SentFaultSignalTests`) and the
/// line editor's call the report's handler themselves and then end the process. Before, they left it to the
/// fault recurring as they returned, and a fault that does not recur let flowhost run on after the report, or
/// with none: `raise(SIGSEGV)` in plugin code, and a breakpoint (int3, whose SIGTRAP leaves the program counter
/// past it) in a plugin's entry point, which then returned as though nothing had happened.
///
/// Not under a sanitizer: there the runtime's report cannot be made (under ThreadSanitizer the `clone` that starts
/// `swift-backtrace` fails a check of TSan's, under AddressSanitizer the process ends with status 1 in it), and the
/// `swift-backtrace` left behind waits for ever on the dead process, holding its standard error open.
@Suite(.disabled(if: Sanitizer.current != nil, "the runtime's crash report cannot be made under a sanitizer"))
struct FaultReportTests {
    /// `send` of a request to a CrashyPlugin manager that traps (a fault that recurs: the report ended the run
    /// before too) or raises SIGSEGV on its own thread, then a line the run must not reach.
    @Test(arguments: [("Trap", SIGILL), ("Raise", SIGSEGV)])
    func aFaultInAManagerEndsTheRunByItsSignalAfterTheReport(manager: String, signal: Int32) throws {
        let run = try FixtureRun(
            routes: [("crashy.fault", "crashy", manager)], script: "send crashy.fault\nstack\n"
        ).run
        expectEndedByFault(run, signal)
    }

    @Test func aBreakpointInAPluginsEntryPointEndsTheRunBySIGTRAPAfterTheReport() throws {
        // With --trust the library opens in flowhost's own process, not in a probe's.
        let run = try FixtureRun(
            routes: [("stop", "breakpoint", "Stop")], script: "send stop\nstack\n", arguments: ["--trust"],
            plugins: ["breakpoint": "libBadBreakpointPlugin.so"]
        ).run
        expectEndedByFault(run, SIGTRAP)
    }

    private func expectEndedByFault(_ run: Subprocess, _ signal: Int32) {
        #expect(run.status == 128 + signal, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardError.contains("Program crashed"), "\(run.standardError)")
        // The script's `stack` after the fault never ran.
        #expect(!run.standardOutput.contains("> stack"), "\(run.standardOutput)")
    }
}
