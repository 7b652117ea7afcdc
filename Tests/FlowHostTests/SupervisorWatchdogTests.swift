import Glibc
import Testing

/// `flowhost run --supervise` with a plugin whose managers misbehave without crashing (the HangyPlugin
/// fixture): they spin, stop the host, close its descriptors, fork a child that holds them, forge the
/// supervisor's messages or call `exit` on a background thread. Each is noticed, said in one line, and the
/// host restarted on the same screen; a script goes on to its end and exits 1 with a summary.
struct SupervisorWatchdogTests {
    /// A manifest with the welcome plugin (its onboarding has pages to be back on), the hangy plugin and the
    /// crashy plugin, beside a private cache directory for the quarantine.
    struct Scenario {
        let directory: TemporaryDirectory
        let manifest: String
        let hangy: String

        init(start: [String] = ["launch"]) throws {
            directory = try TemporaryDirectory()
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            let crashy = try BuildProducts.path(of: "libCrashyPlugin.so")
            hangy = try BuildProducts.path(of: "libHangyPlugin.so")
            let managers = [
                "Spin", "SpinAtExit", "Stop", "CloseInput", "CloseOutput", "CloseError", "CloseLink", "Fork", "Forge",
                "ExitZero",
                "ExitThree", "ExitLater", "ForkExit", "CloseCommands", "ReadInput", "CloseTrace", "ReplaceTrace",
            ]
            let routes =
                [
                    #"{"request": "launch", "plugin": "welcome", "manager": "Launch"}"#,
                    #"{"request": "onboarding.show", "plugin": "welcome", "manager": "Onboarding"}"#,
                    #"{"request": "crashy.trap", "plugin": "crashy", "manager": "Trap"}"#,
                    #"{"request": "crashy.underscoreexit", "plugin": "crashy", "manager": "UnderscoreExit"}"#,
                ]
                + managers.map { #"{"request": "hangy.\#($0.lowercased())", "plugin": "hangy", "manager": "\#($0)"}"# }
            let starts = start.map { "\"\($0)\"" }.joined(separator: ", ")
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1,
                     "plugins": {"welcome": "\(welcome)", "crashy": "\(crashy)", "hangy": "\(hangy)"},
                     "routes": [\(routes.joined(separator: ", "))], "start": [\(starts)]}
                    """)
        }

        var environment: [String: String] {
            ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"]
        }

        func script(_ lines: String) throws -> String {
            try directory.file("app.flow", containing: lines)
        }

        /// Runs `flowhost run MANIFEST --supervise --script SCRIPT` with `options`, and `extra` in its environment;
        /// how long it took.
        func supervise(_ script: String, _ options: [String] = [], environment extra: [String: String] = [:]) throws
            -> (run: Subprocess, elapsed: Duration)
        {
            let clock = ContinuousClock()
            var run: Subprocess?
            let elapsed = try clock.measure {
                run = try Subprocess.flowhost(
                    ["run", manifest, "--supervise", "--script", script] + options,
                    environment: environment.merging(extra) { $1 })
            }
            return (try #require(run), elapsed)
        }

        /// What `flowhost quarantine list` prints.
        func quarantined() throws -> [String] {
            try Subprocess.flowhost(["quarantine", "list"], environment: environment).outputLines
        }
    }

    // MARK: - Hangs

    @Test func aManagerThatSpinsIsBlamedByNameQuarantinedAndThePersonIsBackOnTheSameScreen() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send onboarding.show
            act next
            send hangy.spin
            expect stack welcome > onboardingPage > onboardingPage
            expect content page 2
            act next
            expect content page 3

            """)

        let trace = scenario.directory.path + "/t.jsonl"
        let (run, elapsed) = try scenario.supervise(script, ["--hang-timeout", "5", "--trace", trace])

        #expect(run.status == 1, "\(run.standardError)")
        // The hung host's lines reached the trace up to the request it hung in, then the supervisor's line.
        let lines = try SupervisedTraceTests.lines(of: trace)
        let ended = try #require(lines.firstIndex { $0["kind"] as? String == "hostEnded" })
        #expect(
            lines[ended - 1]["kind"] as? String == "handling" && lines[ended - 1]["request"] as? String == "hangy.spin")
        #expect(lines[ended]["ending"] as? String == "hang" && lines[ended]["plugin"] as? String == "hangy")
        #expect(lines.filter { $0["kind"] as? String == "session" }.count == 1)
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):3: plugin 'hangy' (\(scenario.hangy)) hung for 5 s in hangy.Spin; quarantined; restarting",
                "\(script): 1 plugin crash during the script: hangy.Spin (hung for 5 s)",
            ])
        #expect(
            run.outputLines.contains(
                "  restored 3 of 3 steps; the screen is as saved (from the snapshot saved before the hang)"))
        #expect(elapsed < .seconds(30), "a hang of 5 s is noticed, not left to run forever")
        #expect(
            try scenario.quarantined().first?.hasPrefix(
                "\(scenario.hangy): manager 'Spin': hung for 5 s in hangy.Spin in a supervised run since ") == true)
    }

    @Test func aHangWhileStartingIsNoticedAndTheRestartedHostGoesOn() throws {
        let scenario = try Scenario(start: ["launch", "hangy.spin"])
        let script = try scenario.script("expect top welcome\n")
        let trace = scenario.directory.path + "/t.jsonl"

        let (run, elapsed) = try scenario.supervise(script, ["--hang-timeout", "5", "--trace", trace])

        #expect(run.status == 1, "\(run.standardError)")
        // No snapshot yet: the restarted host starts afresh, a session of its own in the same trace.
        let lines = try SupervisedTraceTests.lines(of: trace)
        #expect(lines.filter { $0["kind"] as? String == "trace" }.count == 1)
        #expect(lines.filter { $0["kind"] as? String == "session" }.compactMap { $0["session"] as? Int } == [1, 2])
        let ended = lines.filter { $0["kind"] as? String == "hostEnded" }
        #expect(ended.count == 1 && ended.first?["session"] as? Int == 1 && ended.first?["input"] as? Int == 0)
        #expect(
            run.errorLines.contains(
                "\(script): plugin 'hangy' (\(scenario.hangy)) hung for 5 s in hangy.Spin; quarantined; restarting"),
            "\(run.standardError)")
        #expect(run.errorLines.last == "\(script): 1 plugin crash during the script: hangy.Spin (hung for 5 s)")
        #expect(elapsed < .seconds(30))
    }

    /// Below a second (`0.000001`), every host was taken for hung as it started.
    @Test(arguments: ["-1", "ten", "1e9", "0.000001", "0.5"])
    func aBadHangTimeoutIsAUsageError(value: String) throws {
        let scenario = try Scenario()
        let script = try scenario.script("stack\n")

        let (run, _) = try scenario.supervise(script, ["--hang-timeout", value])

        #expect(run.status == 64)
        #expect(
            run.errorLines.first
                == "flowhost: --hang-timeout must be a number of seconds from 1 to 86400, or 0 for no limit, not '\(value)'"
        )
    }

    @Test func aHangTimeoutWithoutASupervisorIsAUsageErrorBeforeTheTraceIsEmptied() throws {
        // Without --supervise nothing watches for a hang: the option would only seem to protect the run. (A
        // script that does not hang, so that a run the option no longer stops fails the test, not hangs it.)
        let scenario = try Scenario()
        let script = try scenario.script("stack\n")
        let trace = try scenario.directory.file("kept.jsonl", containing: "kept\n")

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--script", script, "--hang-timeout", "2", "--trace", trace],
            environment: scenario.environment)

        #expect(run.status == 64)
        #expect(
            run.errorLines.first
                == "flowhost: --hang-timeout needs --supervise: only a supervisor watches for a command that hangs")
        #expect(try readText(trace) == "kept\n")
    }

    @Test func aWaitCommandGetsTheTimeItAsksForOnTopAndZeroIsAccepted() throws {
        let scenario = try Scenario()
        // `wait reload` waits its 6 s for a reload that never comes: longer than a timeout of 5 s allows, but
        // a command is given the time it asks to wait on top; with 0 there is no deadline at all.
        let (disabled, _) = try scenario.supervise(
            try scenario.script("wait reload hangy 1\n"), ["--hang-timeout", "0"])
        let (allowed, _) = try scenario.supervise(
            try scenario.script("wait reload hangy 6\n"), ["--hang-timeout", "5"])

        for (run, seconds) in [(disabled, 1), (allowed, 6)] {
            #expect(!run.standardError.contains("hung"), "\(run.standardError)")
            #expect(
                run.errorLines.first?.contains("no new generation of plugin 'hangy' within \(seconds)") == true,
                "\(run.standardError)")
        }
    }

    @Test func aHostThatHangsAsItExitsIsKilledAndTheSessionStillEnds() throws {
        let scenario = try Scenario()
        let script = try scenario.script("send hangy.spinatexit\nquit\n")

        let (run, elapsed) = try scenario.supervise(script, ["--hang-timeout", "5"])

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):2: plugin 'hangy' (\(scenario.hangy)) hung for 5 s in its own code, after hangy.SpinAtExit; "
                    + "quarantined; the session was ending",
                "\(script): 1 plugin crash during the script: its own code, after hangy.SpinAtExit (hung for 5 s)",
            ])
        #expect(elapsed < .seconds(30))
    }

    // MARK: - Stops

    @Test func aHostThatStopsItselfIsContinuedOnceAndKilledTheSecondTime() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send onboarding.show
            send hangy.stop
            expect top resumed
            send hangy.stop
            expect stack welcome > onboardingPage

            """)

        let (run, elapsed) = try scenario.supervise(script)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):2: the host stopped with SIGSTOP; continued it with SIGCONT",
                "\(script):4: plugin 'hangy' (\(scenario.hangy)) stopped the host with SIGSTOP a second time in "
                    + "hangy.Stop; quarantined; restarting",
                "\(script): 1 plugin crash during the script: hangy.Stop (SIGSTOP twice)",
            ])
        #expect(elapsed < .seconds(30))
    }

    // MARK: - Descriptors and the link

    @Test(arguments: [
        ("closeinput", "standard input", 0), ("closeoutput", "standard output", 1), ("closeerror", "standard error", 2),
        ("closecommands", "input of commands", 5),
    ])
    func aPluginThatClosesAStandardDescriptorGetsTheHostRestartedAndNoInputIsLost(
        request: String, name: String, descriptor: Int
    ) throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send onboarding.show
            send hangy.\(request)
            expect stack welcome > onboardingPage
            act next
            expect content page 2

            """)

        let (run, elapsed) = try scenario.supervise(script)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):2: plugin code closed or replaced the host's \(name) (descriptor \(descriptor)); the host "
                    + "cannot go on; restarting",
                "\(script): 1 plugin crash during the script: the host (closed descriptor \(descriptor))",
            ])
        // The command in flight is not sent again; every later line runs.
        #expect(
            run.outputLines.filter { $0.hasPrefix("> ") }.suffix(3) == [
                "> expect stack welcome > onboardingPage", "> act next", "> expect content page 2",
            ])
        #expect(elapsed < .seconds(30))
    }

    /// Plugin code that reads standard input (a library's console prompt, on a thread of its own) read the
    /// supervisor's next command there, token and all, and the host waited for it until the watchdog killed it,
    /// for every command after. The host reads its commands on a descriptor of their own now, and standard
    /// input is `/dev/null`: the plugin reads nothing, and the script runs to its end.
    @Test func aPluginThatReadsStandardInputTakesNoCommand() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send hangy.readinput
            send onboarding.show
            expect stack welcome > readingInput > onboardingPage
            act next
            expect content page 2

            """)

        let (run, _) = try scenario.supervise(script, ["--hang-timeout", "5"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.contains("read 0 bytes of standard input"))
        #expect(run.outputLines.filter { $0.hasPrefix("> ") }.count == 5)
    }

    @Test func aPluginThatClosesTheLinkGetsTheHostRestartedInsteadOfADeadlock() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send onboarding.show
            send hangy.closelink
            expect stack welcome > onboardingPage
            act next
            expect content page 2

            """)

        let (run, elapsed) = try scenario.supervise(script)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):2: plugin code closed the host's link to the supervisor (descriptor 3); killed the host; "
                    + "restarting",
                "\(script): 1 plugin crash during the script: the host (closed descriptor 3)",
            ])
        #expect(elapsed < .seconds(30))
    }

    @Test func aChildAPluginForkedDelaysNeitherACrashReportNorQuit() throws {
        let scenario = try Scenario()
        // Commands on a pipe, sent one by one, so that each wait can be timed. The child holds the pipes for
        // 20 s: the test waits for the supervisor's lines and exit, not for the end of its output.
        let run = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust"], connection: .pipes,
            environment: scenario.environment)
        try run.waitFor("top: welcome", within: .seconds(30))
        try run.send("send hangy.fork\n")
        try run.waitFor("top: forked", within: .seconds(30))
        let clock = ContinuousClock()

        let crashed = clock.now
        try run.send("send crashy.trap\n")
        try run.waitFor(
            "crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting",
            within: .seconds(30))
        #expect(clock.now - crashed < .seconds(5), "not the 20 s the child holds the pipe")
        try run.waitFor("top: forked", within: .seconds(30))  // Restored, and forked again.

        let quitting = clock.now
        try run.send("quit\n")
        #expect(try run.waitForExit(within: .seconds(30)) == .exited(1))
        #expect(clock.now - quitting < .seconds(5), "not the 20 s the child holds the pipe")
        #expect(run.unmatchedOutput().contains("<stdin>: 1 plugin crash during the script: crashy.Trap (SIGILL)"))
    }

    /// A host whose standard output is a pipe that nobody reads yet (a pager left on one screen, a reader that
    /// has not started) waits for it in `write`: the watchdog took that for a hang, killed the host and restarted
    /// it over and over, counting each as a crash. It now waits for the reader too, and the script ends well.
    @Test func aHostWaitingForItsOutputsReaderIsNotHung() throws {
        let scenario = try Scenario()
        let script = try scenario.script(String(repeating: "show\n", count: 1_000))
        let flowhost = try BuildProducts.path(of: "flowhost")
        // The pipe (64 KiB) fills within the first commands; its reader starts after two hang timeouts and more.
        // The timeout leaves room for the host's exit, which the watchdog also times: ThreadSanitizer sleeps 1 s
        // in every process's exit (`atexit_sleep_ms`), and on a loaded machine that exit took more than 2 s (CI).
        let command = """
            { '\(flowhost)' run '\(scenario.manifest)' --supervise --hang-timeout 5 --script '\(script)'; \
            echo "status $?" >&2; } | { sleep 12; wc -c; }
            """

        let run = try Subprocess.run("/bin/sh", ["-c", command], environment: scenario.environment)

        #expect(!run.standardError.contains("hung"), "\(run.standardError)")
        #expect(!run.standardError.contains("restarting"), "\(run.standardError)")
        #expect(run.errorLines.last == "status 0")
        #expect((Int(run.outputLines.first ?? "") ?? 0) > 100_000)
    }

    @Test func aCommandWaitingForAPluginsProbeIsSlowNotHung() throws {
        let scenario = try Scenario()
        let bad = try BuildProducts.path(of: "libBadHangPlugin.so")
        let manifest = try scenario.directory.file(
            "bad.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"welcome": "\(try BuildProducts.path(of: "libWelcomePlugin.so"))",
                 "bad": "\(bad)"}, "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                 {"request": "bad.hang", "plugin": "bad", "manager": "Hang"}], "start": ["launch"]}
                """)
        let script = try scenario.script("send bad.hang\n")

        // The probe of a library whose constructor hangs takes its --probe-timeout, longer than --hang-timeout.
        // The hang timeout leaves room for starting the probe's process on a loaded machine (under the
        // sanitizers that alone took more than 2 s).
        let run = try Subprocess.flowhost(
            ["run", manifest, "--supervise", "--script", script, "--hang-timeout", "5", "--probe-timeout", "12"],
            environment: scenario.environment)

        #expect(run.status == 1)
        #expect(!run.standardError.contains("restarting"), "\(run.standardError)")
        #expect(run.errorLines.first?.contains("hung for 12 s while loading in a probe process") == true)
    }

    @Test func forgedMessagesOnTheLinkMoveNothingOn() throws {
        let scenario = try Scenario()
        // Believed, the forged `done`s would send lines 2 and 3 before line 1 is done: the crash would be laid
        // at line 3 and `stack`, sent to a host about to die, lost.
        let script = try scenario.script(
            """
            send hangy.forge
            send crashy.trap
            stack

            """)

        let (run, _) = try scenario.supervise(script)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("ignored a line on the host's link") }
                == Array(
                    repeating: "flowhost: warning: ignored a line on the host's link (descriptor 3) that is not the "
                        + "message the supervisor waits for; plugin code wrote to it",
                    count: 2),
            "one for each host: the restart replays hangy.forge, which forges again")
        #expect(run.errorLines.contains { $0.hasPrefix("\(script):2: plugin 'crashy' ") }, "\(run.standardError)")
        #expect(run.outputLines.contains("  stack: welcome > forged"), "\(run.standardOutput)")
    }

    // MARK: - At a terminal

    @Test func onATerminalASpinningManagerIsBlamedAndALineTypedMeanwhileIsNotLost() throws {
        let scenario = try Scenario()
        var environment = scenario.environment
        environment["TERM"] = "dumb"
        environment["HOME"] = scenario.directory.path
        let shell = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust", "--hang-timeout", "5"], environment: environment)
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        try shell.send("send onboarding.show\r")
        try shell.waitFor("top: onboardingPage")
        try shell.waitFor("flowhost> ")

        // `stack` is typed while the host spins: it waits for the restarted host.
        try shell.send("send hangy.spin\r")
        try shell.send("stack\r")
        try shell.waitFor("plugin 'hangy' (\(scenario.hangy)) hung for 5 s in hangy.Spin; quarantined; restarting")
        try shell.waitFor("restored 2 of 2 steps; the screen is as saved")
        try shell.waitFor("stack: welcome > onboardingPage")
        try shell.waitFor("flowhost> ")
        try shell.send("quit\r")

        #expect(try shell.waitForExit(within: .seconds(10)) == .exited(0))
    }
}
