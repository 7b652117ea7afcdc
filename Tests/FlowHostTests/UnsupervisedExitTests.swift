import Glibc
import Testing

/// Plugin code that calls `exit` in a run with no supervisor (the HangyPlugin fixture's `ExitZero` manager,
/// whose thread calls `exit(0)` while the manager waits) ends the run with one line naming the plugin, and
/// status 70. Before, the run ended there without a word and with the plugin's status, 0: a script whose
/// later lines, its `expect`s among them, never ran, passed.
struct UnsupervisedExitTests {
    @Test func pluginCodeThatCallsExitZeroEndsTheRunWithALineNamingItAndStatus70() throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "hangy.exit0", "plugin": "hangy", "manager": "ExitZero"}],
                 "start": ["launch"]}
                """)
        let script = try directory.file("app.flow", containing: "send hangy.exit0\nexpect top nowhere\n")
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"])
        #expect(run.status == 70, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: plugin 'hangy' (\(hangy)) called exit(0) in the host's process; the run ended there, "
                    + "unfinished (exit 70)"
            ])
        #expect(run.outputLines.contains("> send hangy.exit0"), "\(run.standardOutput)")
    }

    /// A child plugin code forks that ends with `exit(0)` ends as it means to: its `exit` is not the run's.
    @Test func aForkedChildThatCallsExitZeroEndsWithZeroAndTheRunGoesOn() throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "hangy.forkExit", "plugin": "hangy", "manager": "ForkExit"}],
                 "start": ["launch"]}
                """)
        let script = try directory.file("app.flow", containing: "send hangy.forkExit\nexpect top childExitedWith0\n")
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"]
                .merging(Sanitizer.forkedHelperEnvironment) { $1 })
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.errorLines.isEmpty, "\(run.standardError)")
    }
}
