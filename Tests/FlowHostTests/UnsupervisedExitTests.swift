import Glibc
import Testing

/// Plugin code that calls `exit` in a run with no supervisor (the HangyPlugin fixture's `ExitZero` manager,
/// whose thread calls `exit(0)` while the manager waits) ends the run with one line naming the plugin, and
/// status 70. Before, the run ended there without a word and with the plugin's status, 0: a script whose
/// later lines, its `expect`s among them, never ran, passed.
struct UnsupervisedExitTests {
    @Test func pluginCodeThatCallsExitZeroEndsTheRunWithALineNamingItAndStatus70() throws {
        let lab = try FixtureRun(
            request: "hangy.exit0", manager: "ExitZero", script: "send hangy.exit0\nexpect top nowhere\n")
        let run = lab.run
        #expect(run.status == 70, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: plugin 'hangy' (\(lab.hangy)) called exit(0) in the host's process; the run ended there, "
                    + "unfinished (exit 70)"
            ])
        #expect(run.outputLines.contains("> send hangy.exit0"), "\(run.standardOutput)")
    }

    /// A child plugin code forks that ends with `exit(0)` ends as it means to: its `exit` is not the run's.
    @Test func aForkedChildThatCallsExitZeroEndsWithZeroAndTheRunGoesOn() throws {
        let run = try FixtureRun(
            request: "hangy.forkExit", manager: "ForkExit",
            script: "send hangy.forkExit\nexpect top childExitedWith0\n",
            environment: Sanitizer.forkedHelperEnvironment
        ).run
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.errorLines.isEmpty, "\(run.standardError)")
    }
}
