import Glibc
import Testing

// Supervised plugins that call `exit` (or `exit(0)`), on their own thread or in a call, and `quit`, which
// ends a session with the host's status.
extension SupervisorWatchdogTests {
    @Test(arguments: [("exitzero", 0), ("exitthree", 3)])
    func anExitOnABackgroundThreadIsBlamedAndRestartedNotTakenAsTheSessionsStatus(
        request: String, status: Int32
    ) throws {
        let scenario = try Scenario()
        let manager = request == "exitzero" ? "ExitZero" : "ExitThree"
        let script = try scenario.script(
            """
            send onboarding.show
            act next
            send hangy.\(request)
            expect stack welcome > onboardingPage > onboardingPage
            expect content page 2

            """)

        let (run, _) = try scenario.supervise(script)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):3: plugin 'hangy' (\(scenario.hangy)) called exit(\(status)) in a background thread, after "
                    + "hangy.\(manager); quarantined; restarting",
                "\(script): 1 plugin crash during the script: a background thread, after hangy.\(manager) (exit(\(status)))",
            ])
        // Named by how the host ended: it exited, nothing crashed.
        #expect(
            run.outputLines.contains { $0.hasSuffix("(from the snapshot saved before the host exited)") },
            "\(run.standardOutput)")
        #expect(run.outputLines.last { $0.hasPrefix("> ") } == "> expect content page 2")
    }

    /// A child hangy forks that ends with `exit(0)` runs the host's exit handler too, whose record went on the
    /// page the child shares with the host: the host's later `_exit` in crashy's call, which leaves no record,
    /// was laid at hangy's code, and hangy.ForkExit quarantined, rather than at the call under way.
    @Test func aForkedChildsExitLeavesNoRecordThatBlamesItsPluginForTheHostsLaterExit() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send onboarding.show
            send hangy.forkexit
            send crashy.underscoreexit

            """)

        let (run, _) = try scenario.supervise(script, environment: Sanitizer.forkedHelperEnvironment)

        let crashy = try BuildProducts.path(of: "libCrashyPlugin.so")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):3: plugin 'crashy' (\(crashy)) called exit(3) in crashy.UnderscoreExit; quarantined; restarting",
                "\(script): 1 plugin crash during the script: crashy.UnderscoreExit (exit(3))",
            ], "\(run.standardError)")
    }

    @Test func anExitOutsideAnyPluginCallIsLaidAtThePluginWhoseThreadCalledItAndTheScriptGoesOn() throws {
        let scenario = try Scenario()
        // hangy.exitlater leaves a thread that calls exit(3) a second later, while `wait` waits: no call into
        // the plugin is under way, but its code is on the exiting thread's stack. Its screen cannot come back.
        let script = try scenario.script(
            """
            send onboarding.show
            send hangy.exitlater
            wait reload hangy 5
            expect top onboardingPage

            """)

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise", "--script", script],
            environment: scenario.environment.merging(["HANGY_EXIT_ONCE": scenario.directory.path + "/exited"]) {
                $1
            })

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):3: plugin 'hangy' (\(scenario.hangy)) called exit(3) in a background thread, after "
                    + "hangy.ExitLater; quarantined; restarting",
                "\(script): 1 plugin crash during the script: a background thread, after hangy.ExitLater (exit(3))",
            ])
    }

    @Test func quitEndsASupervisedSessionWithTheHostsStatus() throws {
        let scenario = try Scenario()
        let script = try scenario.script("send onboarding.show\nquit\nsend hangy.spin\n")

        let (run, _) = try scenario.supervise(script, ["--hang-timeout", "5"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.isEmpty)
        #expect(!run.standardOutput.contains("hangy.spin"), "nothing after quit runs")
    }
}
