import Glibc
import HostSupport
import PluginLoading
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
            run.errorLines == [Self.line(plugin: "hangy", library: lab.hangy)])
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

    /// While another thread of the plugin waits for a line of standard input (a pipe that stays open and
    /// silent), holding its stream's lock: the run still ends at once with the line and status 70.
    @Test func anExitWhileAnotherThreadWaitsForInputEndsTheRunAtOnce() throws {
        let input = try #require(PipeDescriptors.make())
        defer {
            close(input.read)
            close(input.write)
        }
        let lab = try FixtureRun(
            request: "hangy.exitWhileReading", manager: "ExitWhileReading", script: "send hangy.exitWhileReading\n",
            inputDescriptor: input.read)
        let run = lab.run
        #expect(run.status == 70, "\(run.standardError)")
        #expect(
            run.errorLines == [Self.line(plugin: "hangy", library: lab.hangy)])
    }

    /// A library whose constructor calls `exit`, loaded with `--trust` (no probe process to take it first): the
    /// line names it, though no image of it is noted yet. Before, it named "code that is not flowhost's".
    @Test(.disabled(if: Sanitizer.current == .thread, "TSan turns exit(0) inside dlopen into exit(66)"))
    func anExitAsAPluginsLibraryOpensNamesThePlugin() throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let bad = try BuildProducts.path(of: "libBadExitPlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "bad": "\(bad)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "bad.go", "plugin": "bad", "manager": "Go"}],
                 "start": ["launch"]}
                """)
        let script = try directory.file("app.flow", containing: "send bad.go\nstack\n")
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script, "--trust"],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"])
        #expect(run.status == 70, "\(run.standardError)")
        #expect(
            run.errorLines == [Self.line(plugin: "bad", library: bad)], "\(run.standardError)")
    }

    /// The line for plugin `plugin`'s `exit(0)`.
    private static func line(plugin: String, library: String) -> String {
        "flowhost: plugin '\(plugin)' (\(library)) called exit(0) in the host's process; the run ended there, "
            + "unfinished (exit 70)"
    }

    /// The line is written raw, as the process ends, not through the console that cleans every other line: a
    /// library named with a newline or a terminal escape (discovery takes any UTF-8 name) prints as `?` there.
    @Test func theLineStaysOneLineWithoutEscapesWhateverTheLibrarysName() {
        let line = UnsupervisedExit.report(status: 0, caller: ("hangy", "/p/lib\n\u{1B}]0;owned\u{7}Hangy.so"))
        #expect(
            line == "flowhost: plugin 'hangy' (/p/lib??]0;owned?Hangy.so) called exit(0) in the host's process; "
                + "the run ended there, unfinished (exit 70)")
    }
}
