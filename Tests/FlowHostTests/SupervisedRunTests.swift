import FlowKit
import Foundation
import Glibc
import HostSupport
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import PluginLoading

/// `flowhost run --supervise` with a plugin whose manager and action trap (the CrashyPlugin fixture): the
/// supervisor names the plugin, quarantines the entry point that crashed, restarts the host on the same
/// screen and goes on; that entry point then fails cleanly, without a second crash. (More places a plugin
/// can crash in: ``SupervisedCrashBlameTests``.)
struct SupervisedRunTests {
    /// A manifest with the welcome plugin (its onboarding opens a child flow) and the crashy plugin, beside
    /// a private cache directory for the quarantine.
    struct Scenario {
        let directory: TemporaryDirectory
        let manifest: String
        let crashy: String

        /// - Parameters:
        ///   - crashyCopies: Copies of the crashy library as plugins `crashy0`, `crashy1`, ..., each with a
        ///     route `crashyN.trap`.
        ///   - services: The crashy plugin's services the manifest starts (`Moody`, `Keeper`).
        ///   - otherPlugins: Plugins, each a copy of the crashy library, with routes `NAME.trap` and
        ///     `NAME.fragile`: `other` and `other.x` share a prefix.
        init(crashyCopies: Int = 0, services: [String] = [], otherPlugins: [String] = []) throws {
            directory = try TemporaryDirectory()
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            crashy = try BuildProducts.path(of: "libCrashyPlugin.so")
            var plugins = [#""welcome": "\#(welcome)""#, #""crashy": "\#(crashy)""#]
            var routes = [
                #"{"request": "launch", "plugin": "welcome", "manager": "Launch"}"#,
                #"{"request": "onboarding.show", "plugin": "welcome", "manager": "Onboarding"}"#,
                #"{"request": "crashy.trap", "plugin": "crashy", "manager": "Trap"}"#,
                #"{"request": "crashy.fragile", "plugin": "crashy", "manager": "Fragile"}"#,
            ]
            for manager in [
                "Later", "Tasky", "Quitter", "Sticky", "Spin", "SpinLater", "Forger", "SignalsDefault", "AbortInLibc",
                "AbortAtLibc",
            ] {
                routes.append(
                    #"{"request": "crashy.\#(manager.lowercased())", "plugin": "crashy", "manager": "\#(manager)"}"#)
            }
            for (index, name) in otherPlugins.enumerated() {
                let library = try directory.file(
                    "libOther\(index).so", containing: BuildProducts.bytes(of: "libCrashyPlugin.so"))
                plugins.append(#""\#(name)": "\#(library)""#)
                for manager in ["Trap", "Fragile"] {
                    routes.append(
                        #"{"request": "\#(name).\#(manager.lowercased())", "plugin": "\#(name)", "manager": "\#(manager)"}"#
                    )
                }
            }
            // Copies are other files, so quarantining one leaves the others to crash.
            for copy in 0..<crashyCopies {
                let library = try directory.file(
                    "libCrashy\(copy).so", containing: BuildProducts.bytes(of: "libCrashyPlugin.so"))
                plugins.append(#""crashy\#(copy)": "\#(library)""#)
                routes.append(#"{"request": "crashy\#(copy).trap", "plugin": "crashy\#(copy)", "manager": "Trap"}"#)
            }
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1, "plugins": {\(plugins.joined(separator: ", "))},
                     "routes": [\(routes.joined(separator: ", "))], "start": ["launch"],
                     "services": [\(services.map { #"{"plugin": "crashy", "service": "\#($0)"}"# }.joined(separator: ", "))]}
                    """)
        }

        var environment: [String: String] {
            ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"]
        }

        func script(_ lines: String) throws -> String {
            try directory.file("app.flow", containing: lines)
        }

        func flowhost(_ arguments: [String]) throws -> Subprocess {
            try Subprocess.flowhost(arguments, environment: environment)
        }

        /// `flowhost run MANIFEST --supervise --script` with `lines`; returns the run and the script's path.
        func supervise(_ lines: String) throws -> (run: Subprocess, script: String) {
            let script = try script(lines)
            return (try flowhost(["run", manifest, "--supervise", "--script", script]), script)
        }

        /// The lines of `flowhost quarantine list`.
        func quarantineList() throws -> [String] {
            try flowhost(["quarantine", "list"]).outputLines.filter { !$0.isEmpty }
        }
    }

    @Test func aManagerThatTrapsIsQuarantinedAndTheScriptGoesOnOnTheSameScreen() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send onboarding.show
            act next
            expect stack welcome > onboardingPage > onboardingPage
            send crashy.trap
            expect stack welcome > onboardingPage > onboardingPage
            expect content page 2
            act next
            expect content page 3

            """)

        let run = try scenario.flowhost(["run", scenario.manifest, "--supervise", "--script", script])

        // The script goes on to its end, then says what crashed and exits 1.
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.errorLines.last == "\(script): 1 plugin crash during the script: crashy.Trap (SIGILL)")
        #expect(
            run.errorLines.filter { $0.contains("restarting") } == [
                "\(script):4: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting"
            ])
        #expect(
            run.outputLines.contains(
                "  restored 3 of 3 steps; the screen is as saved (from the snapshot saved before the crash)"))
        let quarantined = try scenario.flowhost(["quarantine", "list"])
        #expect(
            quarantined.outputLines.first?.hasPrefix(
                "\(scenario.crashy): manager 'Trap': crashed with SIGILL in crashy.Trap in a supervised run since ")
                == true, "\(quarantined.outputLines)")
    }

    @Test func validateSaysARouteWhoseManagerIsQuarantinedIsRefused() throws {
        let scenario = try Scenario()
        #expect(try scenario.flowhost(["validate", scenario.manifest]).status == 0)
        _ = try scenario.supervise("send crashy.trap\n")
        try #require(try scenario.quarantineList().contains { $0.contains("manager 'Trap'") })

        let run = try scenario.flowhost(["validate", scenario.manifest])

        #expect(run.status == 65)
        #expect(
            run.errorLines.first?.hasPrefix(
                "\(scenario.crashy): plugin 'crashy': manager 'Trap' is quarantined: it crashed with SIGILL") == true,
            "\(run.errorLines)")
        #expect(run.errorLines.last == "\(scenario.manifest): 1 problem found")
        let listed = try scenario.flowhost(["list", scenario.manifest, "--eager"])
        #expect(listed.status == 65)
        #expect(listed.errorLines == [try #require(run.errorLines.first)])
        let document = try JSONValue(
            parsing: try scenario.flowhost(["list", scenario.manifest, "--eager", "--json"]).standardOutput)
        let trap = try #require(document["routes"]?.array?.first { $0["request"] == "crashy.trap" })
        #expect(trap["error"]?["kind"] == "quarantined", "\(trap)")
    }

    /// Piped input names its lines `<stdin>:N:` as a script names them `FILE:N:`: the supervisor's own lines
    /// (a crash's report, the summary) as well as the host's errors.
    @Test func pipedInTheSupervisorsLinesStartWithStdinAndTheLine() throws {
        let scenario = try Scenario()

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise"], input: "send crashy.trap\nstack\nsend nope.x\n",
            environment: scenario.environment)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "<stdin>:1: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting",
                "<stdin>:3: error: no route handles nope.x",
                "<stdin>: 1 plugin crash during the script: crashy.Trap (SIGILL)",
            ])
    }

    @Test func aCrashIsOneLineAndItsStackTraceFollowsOnlyWhenAskedForEachImageNamed() throws {
        let (quiet, asking) = (try Scenario(), try Scenario())  // Each its own quarantine.
        let script = try quiet.script("send crashy.trap\n")
        var environment = asking.environment
        environment["FLOWHOST_BACKTRACE"] = "1"

        let run = try quiet.flowhost(["run", quiet.manifest, "--supervise", "--script", script])
        let traced = try Subprocess.flowhost(
            ["run", asking.manifest, "--supervise", "--script", script], environment: environment)

        let line =
            "\(script):1: plugin 'crashy' (\(quiet.crashy)) crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting"
        let summary = "\(script): 1 plugin crash during the script: crashy.Trap (SIGILL)"
        #expect(run.errorLines == [line, summary], "no runtime report, no stack trace")
        #expect(traced.errorLines.first == line && traced.errorLines.last == summary)
        let frames = traced.errorLines.dropFirst().dropLast()
        #expect(frames.count > 5 && frames.allSatisfy { $0.hasPrefix("  ") }, "\(traced.errorLines)")
        #expect(frames.contains { $0.split(separator: " ").dropFirst().first == "libCrashyPlugin.so" })
        #expect(
            !frames.contains { $0.split(separator: " ").dropFirst().first?.allSatisfy(\.isNumber) == true },
            "no image is named by the number of the descriptor it was loaded through")
    }

    @Test func anActionThatTrapsIsLaidAtThePluginThatPresentedItsModuleAndOnlyTheActionIsQuarantined() throws {
        let scenario = try Scenario()
        let script = try scenario.script(
            """
            send crashy.fragile
            act trap
            expect stack welcome > fragile

            """)

        let run = try scenario.flowhost(["run", scenario.manifest, "--supervise", "--script", script])

        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.errorLines.last == "\(script): 1 plugin crash during the script: action 'trap' of fragile (SIGILL)")
        #expect(
            run.errorLines.contains(
                "\(script):2: plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in action 'trap' of fragile (fatal error at CrashyPlugin/CrashyPlugin.swift:23: the crashy plugin's fragile module traps on purpose); quarantined; restarting"
            ))
        // Only the action is quarantined: the manager that presented its module brings the screen back.
        #expect(
            run.outputLines.contains(
                "  restored 2 of 2 steps; the screen is as saved (from the snapshot saved before the crash)"))
        #expect(!run.errorLines.contains { $0.contains("warning") }, "\(run.errorLines)")
    }

    @Test(arguments: ["xterm-256color", "dumb"])
    func onATerminalThePersonIsBackAtThePromptAndTheQuarantinedRouteFailsCleanly(term: String) throws {
        let scenario = try Scenario()
        var environment = scenario.environment
        environment["TERM"] = term
        environment["HOME"] = scenario.directory.path
        // --trust: no probes, so only the supervisor's quarantine keeps the plugin out after the restart.
        let shell = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust"], environment: environment)
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        try shell.send("send onboarding.show\r")
        try shell.waitFor("top: onboardingPage")
        try shell.waitFor("flowhost> ")

        try shell.send("send crashy.trap\r")
        try shell.waitFor(
            "plugin 'crashy' (\(scenario.crashy)) crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting"
        )
        try shell.waitFor("restored 2 of 2 steps; the screen is as saved")
        try shell.waitFor("flowhost> ")
        try shell.send("stack\r")
        try shell.waitFor("stack: welcome > onboardingPage")
        try shell.waitFor("flowhost> ")
        try shell.send("send crashy.trap\r")
        try shell.waitFor(
            "error: crashy.trap failed: \(scenario.crashy): plugin 'crashy': manager 'Trap' is quarantined: it crashed with SIGILL"
        )
        try shell.waitFor("flowhost> ")
        try shell.send("quit\r")

        #expect(try shell.waitForExit(within: .seconds(10)) == .exited(0))
        let screen = String(decoding: shell.transcript, as: UTF8.self)
        #expect(screen.split(separator: "restarting", omittingEmptySubsequences: false).count == 2, "one crash")
    }

    /// A crash between commands, while the person is at the prompt (the crashy plugin's Later manager
    /// segfaults on a thread of its own half a second after it returned): the supervisor's line starts a row
    /// of its own, the new host prints what it restored, and the prompt is back below it.
    @Test(arguments: ["xterm-256color", "dumb"])
    func aCrashAtThePromptIsReportedAboveItAndThePromptComesBackAfterTheRestore(term: String) throws {
        let scenario = try Scenario()
        var environment = scenario.environment
        environment["TERM"] = term
        environment["HOME"] = scenario.directory.path
        let shell = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust"], environment: environment)
        defer { shell.signal(SIGKILL) }
        try shell.waitFor("flowhost> ")
        try shell.send("send crashy.later\r")
        try shell.waitFor("handled by crashy.Later")
        try shell.waitFor("flowhost> ")

        let report = "flowhost: plugin 'crashy' (\(scenario.crashy)) crashed with SIGSEGV in a background thread"
        let beforeReport = try shell.waitFor(report).dropLast(report.count).replacingOccurrences(
            of: "\u{1B}[31m", with: "")
        try shell.waitFor("after crashy.Later; quarantined; restarting")
        try shell.waitFor("restored 1 of 1 step; the screen is as saved")

        #expect(
            beforeReport.unicodeScalars.last == "\n" || beforeReport.hasSuffix("\r\u{1B}[J"),
            "the report starts a row of its own, not after the prompt: \(beforeReport.debugDescription)")
        try shell.waitFor("flowhost> ")
        try shell.send("stack\r")
        try shell.waitFor("stack: welcome")
        try shell.waitFor("flowhost> ")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func moreThanFiveRestartsWithinAMinuteGiveUpWithExit70() throws {
        let scenario = try Scenario(crashyCopies: 6)
        let script = try scenario.script((0..<6).map { "send crashy\($0).trap\n" }.joined())

        let run = try scenario.flowhost(["run", scenario.manifest, "--supervise", "--script", script])

        #expect(run.status == 70)
        let reports = run.errorLines.filter { $0.hasPrefix(script + ":") }
        #expect(reports.count == 6)
        #expect(reports.prefix(5).allSatisfy { $0.hasSuffix("; quarantined; restarting") })
        #expect(
            reports.last?.hasSuffix("; quarantined; the host ended 6 times within 60 s; giving up") == true,
            "\(reports)")
    }

    /// The supervisor keeps the snapshot a restart restores in a directory of its own under `$TMPDIR`: not under
    /// one others can write without the sticky bit, where another user could rename it and put theirs in place.
    @Test func aTemporaryDirectoryOthersCanChangeIsRefusedWithOneLine() throws {
        let scenario = try Scenario()
        let shared = scenario.directory.path + "/shared"
        try #require(mkdir(shared, 0o700) == 0 && chmod(shared, 0o777) == 0)
        let script = try scenario.script("stack\n")

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise", "--script", script],
            environment: scenario.environment.merging(["TMPDIR": shared]) { $1 })

        #expect(run.status == 70)
        #expect(
            run.errorLines == [
                "flowhost: cannot supervise: cannot keep its files in \(shared): directory \(shared) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid())); any user can change the snapshot a restart restores; set TMPDIR to a directory of your own"
            ])
        #expect(rmdir(shared) == 0, "nothing left in it")
    }

    @Test func aScriptFailureUnderTheSupervisorIsTheScriptsExitCode() throws {
        let scenario = try Scenario()
        let script = try scenario.script("expect top nowhere\n")

        let run = try scenario.flowhost(["run", scenario.manifest, "--supervise", "--script", script])

        #expect(run.status == 1)
        #expect(run.errorLines == ["\(script):1: expectation failed: top is 'welcome', expected 'nowhere'"])
    }
}

/// The breadcrumb a supervised host keeps: the plugin call on top of a stack, in a page that outlives it.
@MainActor
struct CrashBreadcrumbTests {
    @Test func theCrumbOnTopIsWhatAReaderSeesAndLeavingRestoresTheOneBelow() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/breadcrumb"
        let breadcrumb = try CrashBreadcrumb(path: path)
        let outer = CrashBreadcrumb.Crumb(plugin: "catalog", library: "/p/libCatalog.so", place: "action 'add' of list")
        let inner = CrashBreadcrumb.Crumb(plugin: "crashy", library: "/p/libCrashy.so", place: "crashy.Trap")
        #expect(CrashBreadcrumb.read(path: path) == nil)

        breadcrumb.enter(outer)
        breadcrumb.enter(inner, for: "crashy.trap")
        #expect(CrashBreadcrumb.read(path: path) == inner)

        breadcrumb.leave(request: "other.request")
        #expect(CrashBreadcrumb.read(path: path) == inner, "a request that entered no crumb leaves none")
        breadcrumb.leave(request: "crashy.trap")
        #expect(CrashBreadcrumb.read(path: path) == outer)
        breadcrumb.leave()
        #expect(CrashBreadcrumb.read(path: path) == nil)
    }

    @Test func aHostLeavesEveryCrumbItEntersOnceARequestIsDone() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/breadcrumb"
        let host = try Host.bundled("manifests/demo.json")
        host.breadcrumb = try CrashBreadcrumb(path: path)
        host.start()

        let shell = HostShell(host: host)
        #expect(shell.execute("send onboarding.show").status == .ok)
        #expect(shell.execute("act next").status == .ok)

        #expect(CrashBreadcrumb.read(path: path) == nil)
        #expect(host.modulePresenters["onboardingPage"]?.plugin == "welcome")
    }
}
