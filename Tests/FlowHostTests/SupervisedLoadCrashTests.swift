import Foundation
import Glibc
import Testing

/// A plugin library whose constructor aborts (the BadAbortPlugin fixture) under `flowhost run --supervise
/// --trust`: no probe loads it first, so it crashes the host as the host loads it. The supervisor lays the
/// crash at the library (not at the request that needed it loaded, nor at nobody), quarantines it whole on
/// the first crash, and the run goes on without it, rather than restarting a host that crashes again.
struct SupervisedLoadCrashTests {
    /// The welcome plugin and plugin `bad` at the aborting library, with routes `bad.show` and `bad.other` to
    /// two of its managers, and with `service` one of its services the manifest starts.
    struct Scenario {
        let directory: TemporaryDirectory
        let manifest: String
        let bad: String

        /// - Parameter library: Plugin `bad`'s library, a bad library's.
        init(service: Bool = false, library: String = "libBadAbortPlugin.so") throws {
            directory = try TemporaryDirectory()
            bad = try BuildProducts.path(of: library)
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            let services = service ? #"{"plugin": "bad", "service": "Clock"}"# : ""
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "bad": "\(bad)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                                {"request": "bad.show", "plugin": "bad", "manager": "Show"},
                                {"request": "bad.other", "plugin": "bad", "manager": "Other"}],
                     "services": [\(services)], "start": ["launch"]}
                    """)
        }

        var environment: [String: String] {
            [
                "XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state",
                "HOME": directory.path,
            ]
        }

        /// The supervisor's line for the crash, after its place.
        var report: String {
            "plugin 'bad' (\(bad)) crashed with SIGABRT while loading its library (in a constructor or its entry "
                + "point); quarantined; restarting"
        }

        /// What the restarted host says of the library, and what a route to it fails with.
        var refusal: String {
            "\(bad): is quarantined: it crashed with SIGABRT while loading in a supervised run; it stays refused "
                + "until the file changes, or run `flowhost quarantine clear \(bad)`"
        }

        /// The lines of `flowhost quarantine list`.
        func quarantineList() throws -> [String] {
            try Subprocess.flowhost(["quarantine", "list"], environment: environment).outputLines.filter {
                !$0.isEmpty
            }
        }
    }

    /// The first request routed to the plugin loads it: the crash is the library's, not that manager's, so
    /// the plugin's other manager is refused too, without a second crash.
    @Test func aLibraryWhoseConstructorAbortsAsARequestLoadsItIsQuarantinedWholeOnTheFirstCrash() throws {
        let scenario = try Scenario()
        let script = try scenario.directory.file(
            "app.flow",
            containing: """
                send bad.show
                expect top welcome
                send bad.other

                """)

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust", "--script", script],
            environment: scenario.environment)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "\(script):1: \(scenario.report)",
                "\(script):3: error: bad.other failed: \(scenario.refusal)",
                "\(script): 1 plugin crash during the script: bad while loading (SIGABRT)",
            ])
        #expect(run.outputLines.contains("> expect top welcome"))
        let list = try scenario.quarantineList()
        #expect(list.count == 1, "the library, not an entry point: \(list)")
        #expect(
            list.first?.hasPrefix(
                "\(scenario.bad): crashed with SIGABRT while loading in a supervised run since ") == true, "\(list)")
    }

    /// Loaded as the host is made (for its service, or with `--eager` for every plugin): the host crashed
    /// before its start, and would again at every restart until the supervisor gave up (exit 70).
    @Test(arguments: [false, true])
    func aLibraryWhoseConstructorAbortsAsTheHostStartsIsQuarantinedAndTheRestartedHostGoesOn(eager: Bool) throws {
        let scenario = try Scenario(service: !eager)
        let script = try scenario.directory.file("app.flow", containing: "expect top welcome\nsend bad.show\n")

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust", "--script", script] + (eager ? ["--eager"] : []),
            environment: scenario.environment)

        // The restarted host refuses it as it starts, then where a route needs it.
        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "\(script): \(scenario.report)",
                scenario.refusal,
                "\(script):2: error: bad.show failed: \(scenario.refusal)",
                "\(script): 1 plugin crash during the script: bad while loading (SIGABRT)",
            ])
        #expect(run.outputLines.contains("> expect top welcome"), "the restarted host started")
    }

    /// At a prompt: one line, the prompt back, and the plugin's routes fail cleanly from then on.
    @Test func atAPromptTheLoadCrashIsOneLineAndThePluginsRoutesThenFailCleanly() throws {
        let scenario = try Scenario()
        var environment = scenario.environment
        environment["TERM"] = "dumb"
        let shell = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust"], environment: environment)
        defer { shell.signal(SIGKILL) }
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")

        try shell.send("send bad.show\r")
        try shell.waitFor("flowhost: \(scenario.report)")
        try shell.waitFor("restored 1 of 1 step; the screen is as saved")
        try shell.waitFor("flowhost> ")
        try shell.send("send bad.other\r")
        try shell.waitFor("error: bad.other failed: \(scenario.refusal)")
        try shell.waitFor("flowhost> ")
        try shell.send("quit\r")

        #expect(try shell.waitForExit() == .exited(0))
        let screen = String(decoding: shell.transcript, as: UTF8.self)
        #expect(screen.components(separatedBy: "restarting").count == 2, "one crash: \(screen)")
    }

    /// A constructor that starts a thread which segfaults in the library's code (the BadThreadPlugin fixture):
    /// the crash is on another thread than the one loading it, and the library's image is not noted yet, but
    /// the crash handler finds its code in the host's mappings, so the library is quarantined whole.
    @Test func aThreadTheConstructorStartsCrashesInTheLibrarysCodeAndTheLibraryIsQuarantinedWhole() throws {
        let scenario = try Scenario(library: "libBadThreadPlugin.so")
        let script = try scenario.directory.file(
            "app.flow", containing: "send bad.show\nexpect top welcome\nsend bad.other\n")

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust", "--script", script],
            environment: scenario.environment)

        let refusal =
            "\(scenario.bad): is quarantined: it crashed with SIGSEGV while loading in a supervised run; it stays "
            + "refused until the file changes, or run `flowhost quarantine clear \(scenario.bad)`"
        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "\(script):1: plugin 'bad' (\(scenario.bad)) crashed with SIGSEGV while loading its library (on a "
                    + "thread running its code); quarantined; restarting",
                "\(script):3: error: bad.other failed: \(refusal)",
                "\(script): 1 plugin crash during the script: bad while loading (SIGSEGV)",
            ])
        let list = try scenario.quarantineList()
        #expect(list.count == 1, "the library, not an entry point: \(list)")
        #expect(
            list.first?.hasPrefix(
                "\(scenario.bad): crashed with SIGSEGV while loading in a supervised run since ") == true, "\(list)")
    }

    /// A constructor that hangs (the BadHangPlugin fixture, deaf even to the watchdog's SIGQUIT) looks no
    /// different from a load waiting on another thread that holds the loader's lock, or from a start whose
    /// time was spent before the load: the line names the load, and nothing is quarantined. Five seconds, as
    /// the watchdog's other tests: under a sanitizer the restarted host's exit can take longer than one.
    @Test func aHangWhileALibraryLoadsIsNamedButNotQuarantined() throws {
        let scenario = try Scenario(library: "libBadHangPlugin.so")
        let script = try scenario.directory.file("app.flow", containing: "send bad.show\nexpect top welcome\n")

        let run = try Subprocess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trust", "--hang-timeout", "5", "--script", script],
            environment: scenario.environment)

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "\(script):1: the host hung for 5 s while plugin 'bad' (\(scenario.bad)) was loading its library; "
                    + "killed; not laid at it (not shown to be its code); restarting",
                "\(script): 1 plugin crash during the script: the host (hung for 5 s)",
            ])
        #expect(try scenario.quarantineList() == ["no library is quarantined"])
    }
}
