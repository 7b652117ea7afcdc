import FlowKit
import Foundation
import Glibc
import Testing

@testable import HostSupport
@testable import PluginLoading

/// Crashes outside the calls a supervised host makes into a plugin, laid at the door of the plugin whose
/// code crashed (its image holds the faulting code or a frame of the stack): a thread or a task of its own
/// after its manager returned, a manager's end, a lifecycle event, a service's `importState` during the
/// restore, an `exit` from a thread of its own. Each quarantines the entry point, and the rest of the plugin
/// goes on working (the CrashyPlugin fixture).
///
/// The threads and the task crash 500 ms after their manager returned; the script waits for them with
/// `wait reload crashy 5`, which the crash cuts short.
struct SupervisedCrashBlameTests {
    typealias Scenario = SupervisedRunTests.Scenario

    /// Whether the run's script went on to its end: no failed expectation, no failed command. Its status is
    /// 0, or 1 once a supervised script that saw a crash says so at its end (issue 19, item 6).
    private func wentOnToTheEnd(_ run: Subprocess) -> Bool {
        [0, 1].contains(run.status)
            && !run.errorLines.contains { $0.contains("expectation failed") || $0.contains(": error: ") }
    }

    @Test func aSegfaultOnAThreadThePluginStartedIsLaidAtItsManagerAndTheRestOfThePluginWorks() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send onboarding.show
            act next
            send crashy.later
            wait reload crashy 5
            expect stack welcome > onboardingPage > onboardingPage
            send crashy.fragile
            expect top fragile

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):4: plugin 'crashy' (\(scenario.crashy)) crashed with SIGSEGV in a background thread, after crashy.Later; quarantined; restarting"
            ])
        #expect(
            run.outputLines.contains(
                "  restored 3 of 3 steps; the screen is as saved (from the snapshot saved before the crash)"))
        let list = try scenario.quarantineList()
        #expect(list.count == 1)
        #expect(list.first?.hasPrefix("\(scenario.crashy): manager 'Later': crashed with SIGSEGV") == true, "\(list)")
    }

    /// A thread whose start routine is the plugin's but jumped into libc (`setcontext()` through a function
    /// pointer, a tail call, going on at `abort()` on a stack of its own) crashes with only libc's frames on its
    /// stack: its start routine, in the thread's descriptor, is the evidence, and the crash is laid at the plugin
    /// rather than at nobody (`the host crashed with SIGABRT`). Not under a sanitizer, which starts every thread
    /// at a routine of its own (it intercepts `pthread_create`), so that the descriptor names the sanitizer's.
    @Test(
        .disabled(
            if: Sanitizer.current != nil,
            "a sanitizer starts every thread at its own routine: the thread's descriptor does not name the plugin's"))
    func anAbortInLibcOnAThreadWhoseStartRoutineIsThePluginsIsLaidAtIt() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send onboarding.show
            send crashy.abortinlibc
            wait reload crashy 5
            expect top onboardingPage
            send crashy.fragile
            expect top fragile

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):3: plugin 'crashy' (\(scenario.crashy)) crashed with SIGABRT in a background thread, after crashy.AbortInLibc; quarantined; restarting"
            ])
        let list = try scenario.quarantineList()
        #expect(
            list.first?.hasPrefix("\(scenario.crashy): manager 'AbortInLibc': crashed with SIGABRT") == true, "\(list)")
    }

    /// A thread the plugin started at libc's `abort()` itself has nothing of the plugin's, on its stack or as its
    /// start routine; its creator, the only evidence, is not recorded: nobody is blamed, and the line says why
    /// and what to do, rather than only `the host crashed with SIGABRT`.
    @Test func aCrashOnAThreadStartedAtLibcsOwnFunctionSaysWhyNobodyIsBlamed() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send onboarding.show
            send crashy.abortatlibc
            wait reload crashy 5
            expect top onboardingPage

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):3: the host crashed with SIGABRT on a thread with no plugin code on its stack nor as its start routine (not a plugin call's; its creator is not recorded): laid at no plugin; to learn whose thread it is, run it without --supervise under a debugger; restarting"
            ])
        #expect(try scenario.quarantineList() == ["no library is quarantined"])
    }

    @Test func anExitOnAThreadThePluginStartedIsReportedLikeACrashAndTheRestOfThePluginWorks() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send onboarding.show
            send crashy.quitter
            wait reload crashy 5
            expect top onboardingPage
            send crashy.fragile
            expect top fragile
            send crashy.quitter

            """)

        #expect(wentOnToTheEnd(run) == false, "the last line is refused")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):3: plugin 'crashy' (\(scenario.crashy)) called exit(3) in a background thread, after crashy.Quitter; quarantined; restarting"
            ])
        #expect(
            run.errorLines.dropLast().last
                == "\(script):7: error: crashy.quitter failed: \(scenario.crashy): plugin 'crashy': manager 'Quitter' is quarantined: it called exit(3) in a background thread, after crashy.Quitter in a supervised run; it stays refused until the file changes, or run `flowhost quarantine clear \(scenario.crashy)`"
        )
        #expect(run.outputLines.contains("> expect top fragile"))
    }

    @Test func aTaskThatTrapsIsLaidAtTheManagerThatStartedIt() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send onboarding.show
            send crashy.tasky
            wait reload crashy 5
            expect top onboardingPage
            send crashy.fragile
            expect top fragile

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):3: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in a background thread, after crashy.Tasky (fatal error at CrashyPlugin/CrashyPlugin.swift:81: the crashy plugin's task traps on purpose); quarantined; restarting"
            ])
    }

    @Test func aManagerWhoseEndTrapsOnBackIsQuarantined() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send crashy.sticky
            back
            expect top welcome
            send crashy.fragile
            expect top fragile

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):2: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in didEnd of crashy.Sticky (fatal error at CrashyPlugin/CrashyPlugin.swift:37: the crashy plugin's Sticky manager traps as it ends); quarantined; restarting"
            ])
        #expect(try scenario.quarantineList().first?.contains(": manager 'Sticky': ") == true)
        // The restarted host cannot bring the sticky screen back: its restore's report says why, once (not
        // also in the replayed request's line and in a warning).
        let refusal = "plugin 'crashy': manager 'Sticky' is quarantined"
        #expect(
            (run.outputLines + run.errorLines).filter { $0.contains(refusal) } == [
                "    step 2 (crashy.sticky from welcome in the root coordinator): failed: \(scenario.crashy): \(refusal): it crashed with SIGILL in didEnd of crashy.Sticky in a supervised run; it stays refused until the file changes, or run `flowhost quarantine clear \(scenario.crashy)`"
            ], "\(run.standardOutput)\n\(run.standardError)")
    }

    @Test func aServiceThatTrapsOnALifecycleEventIsQuarantinedAlone() throws {
        let scenario = try Scenario(services: ["Moody"])
        let (run, script) = try scenario.supervise(
            """
            send onboarding.show
            lifecycle background
            expect top onboardingPage
            lifecycle background
            send crashy.fragile
            expect top fragile

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):2: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in lifecycle event 'background' (crashy.Moody) (fatal error at CrashyPlugin/CrashyPlugin.swift:102: the crashy plugin's Moody service traps on purpose); quarantined; restarting"
            ])
        // The restarted host runs without the service, and says why once.
        let refusal = "\(scenario.crashy): plugin 'crashy': service 'Moody' is quarantined: it crashed with SIGILL"
        #expect(run.errorLines.contains { $0.hasPrefix(refusal) }, "\(run.errorLines)")
    }

    @Test func aServiceThatTrapsTakingItsStateDuringTheRestoreIsQuarantinedInsteadOfLooping() throws {
        let scenario = try Scenario(services: ["Keeper"])
        let (run, script) = try scenario.supervise(
            """
            send onboarding.show
            send crashy.trap
            expect top onboardingPage

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):2: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting",
                "\(script):2: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in importState of service crashy.Keeper (fatal error at CrashyPlugin/CrashyPlugin.swift:111: the crashy plugin's Keeper service traps on importState); quarantined; restarting",
            ])
        #expect(
            run.outputLines.contains(
                "  restored 2 of 2 steps; the screen is as saved (from the snapshot saved before the crash)"))
    }

    @Test func aCrashInPluginOtherDotXIsLaidAtOtherDotXNotAtOther() throws {
        let scenario = try Scenario(otherPlugins: ["other", "other.x"])
        let otherX = scenario.directory.path + "/libOther1.so"
        let (run, script) = try scenario.supervise(
            """
            send other.x.trap
            send other.fragile
            expect top fragile
            send other.x.fragile
            expect top fragile

            """)

        #expect(wentOnToTheEnd(run), "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):1: plugin 'other.x' (\(otherX)) crashed with SIGILL in other.x.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting"
            ])
        let list = try scenario.quarantineList()
        #expect(list.count == 1)
        #expect(list.first?.hasPrefix("\(otherX): manager 'Trap': ") == true, "\(list)")
    }

    @Test func aPluginWithThreeEntryPointsQuarantinedIsQuarantinedWhole() throws {
        let scenario = try Scenario()
        let (run, script) = try scenario.supervise(
            """
            send crashy.trap
            send crashy.fragile
            act trap
            send crashy.sticky
            back
            send crashy.later

            """)

        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):1: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting",
                "\(script):3: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in action 'trap' of fragile (fatal error at CrashyPlugin/CrashyPlugin.swift:23: the crashy plugin's fragile module traps on purpose); quarantined; restarting",
                "\(script):5: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in didEnd of crashy.Sticky (fatal error at CrashyPlugin/CrashyPlugin.swift:37: the crashy plugin's Sticky manager traps as it ends); quarantined, the whole plugin: 3 of its entry points crashed; restarting",
            ])
        #expect(
            run.errorLines.dropLast().last?.hasPrefix(
                "\(script):6: error: crashy.later failed: \(scenario.crashy): is quarantined: it crashed in 3 entry points: "
            ) == true, "\(run.errorLines)")
        #expect(try scenario.quarantineList().count == 4, "the library, and its three entry points")
    }

    /// A task on the main actor that spins, after its manager returned: no crumb is on top, so only the
    /// record of the hung thread's code names the plugin. The signal goes to the process, as a watchdog's
    /// may; the kernel gives it to the main thread, which is not the one that hangs.
    @Test func aSigquitAtAHostHungBetweenCommandsIsLaidAtThePluginWhoseCodeSpins() throws {
        let scenario = try Scenario()
        let script = try scenario.script("send crashy.spinlater\nwait reload crashy 5\nexpect top welcome\n")
        var environment = scenario.environment
        environment["TMPDIR"] = scenario.directory.path
        let supervisor = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--script", script], environment: environment)
        try supervisor.waitFor("> send crashy.spinlater")
        let directory = try #require(
            try FileManager.default.contentsOfDirectory(atPath: scenario.directory.path).first {
                $0.hasPrefix("flowhost-supervisor-")
            })
        let host = try #require(try Self.children(of: supervisor.pid).first)
        let breadcrumb = "\(scenario.directory.path)/\(directory)/breadcrumb"
        // Until the command is done (no crumb on top) and the thread that calls into plugins has spun for a
        // fifth of a second of processor time since: the task's loop, not the command's end.
        let deadline = ContinuousClock.now + .seconds(10)
        var spun: (thread: Int32, since: Int)?
        while ContinuousClock.now < deadline {
            guard let page = CrashBreadcrumb.Page(path: breadcrumb), page.crumb == nil,
                let time = Self.processorTicks(of: page.crumbThread, in: host)
            else { continue }
            if spun?.thread != page.crumbThread { spun = (page.crumbThread, time) }
            if let spun, time - spun.since >= 20 { break }
            sched_yield()
        }

        kill(host, SIGQUIT)

        try supervisor.waitFor(
            "plugin 'crashy' (\(scenario.crashy)) crashed with SIGQUIT in its own code, after crashy.SpinLater; quarantined; restarting"
        )
        try supervisor.waitFor("> expect top welcome")
        _ = try supervisor.waitForExit(within: .seconds(10))
        #expect(!supervisor.unmatchedOutput().contains("expectation failed"))
    }

    /// The processor time thread `thread` of process `pid` used, in clock ticks (user and system), from /proc.
    private static func processorTicks(of thread: Int32, in pid: pid_t) -> Int? {
        guard let text = procText("/proc/\(pid)/task/\(thread)/stat"),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the name: state, then 10 fields, then utime and stime.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The text of a file in `/proc`, read to its end: its size says 0. (FoundationEssentials' reading of
    /// such a file leaks its buffer, which LeakSanitizer reports.)
    private static func procText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The processes `pid` started, from every thread of it.
    private static func children(of pid: pid_t) throws -> [pid_t] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.flatMap { task in
            let text = procText("/proc/\(pid)/task/\(task)/children") ?? ""
            return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    @Test func aForgedQuarantineIsReadWithoutItsControlCharactersAndMalformedEntries() throws {
        let scenario = try Scenario()
        let identity = try #require(FileIdentity(path: scenario.crashy))
        let file: JSONValue = .object(identity.json)
        let entries: JSONValue = [
            "entries": [
                scenario.crashy: [
                    "file": file,
                    "entryPoints": [
                        "manager Trap": ["kind": "crashed", "reason": "crashed \u{1B}[31mred\u{1B}[0m", "since": "0"],
                        "manager Tr\u{1B}ap": ["kind": "crashed", "reason": "escaped", "since": "0"],
                        "nonsense": ["kind": "crashed", "reason": "no kind of entry point", "since": "0"],
                    ],
                ],
                "relative/lib.so": ["file": file, "kind": "crashed", "reason": "not absolute", "since": "0"],
            ]
        ]
        let cache = scenario.directory.path + "/cache/flowhost"
        #expect(mkdir(scenario.directory.path + "/cache", 0o700) == 0 && mkdir(cache, 0o700) == 0)
        _ = try scenario.directory.file("cache/flowhost/quarantine.json", containing: entries.prettyDescription)

        let list = try scenario.quarantineList()

        #expect(list.count == 1, "\(list)")
        #expect(list.first?.hasPrefix("\(scenario.crashy): manager 'Trap': crashed ?[31mred?[0m since ") == true)
    }
}
