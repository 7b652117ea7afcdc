import Glibc
import Testing

/// `replay` runs plugins' code in its process as `run` does, and watches it as `run` does: plugin code's `exit`
/// ends it with one line naming the plugin and status 70, and a child plugin code forks that comes back into
/// the host's code ends itself with one line naming the plugin. Before, a replay whose plugin called `exit(0)`
/// ended at once with status 0 and no word, a replay that passed; and a forked child that came back replayed
/// on and printed the divergence a second time.
///
/// The trace is recorded with a manifest that routes `hangy.*` to the welcome plugin's harmless `Launch`, and
/// replayed with `--manifest` one that routes them to the HangyPlugin fixture's managers, as a person checks
/// another manifest against recorded sessions.
struct ReplayPluginCodeWatchTests {
    @Test func pluginCodeThatCallsExitZeroInAReplayEndsItWithALineNamingItAndStatus70() throws {
        let lab = try ReplayLab(request: "hangy.exit0", manager: "ExitZero")
        let replay = try lab.replay()
        #expect(replay.status == 70, "\(replay.standardOutput)\(replay.standardError)")
        #expect(
            replay.errorLines == [
                "flowhost: plugin 'hangy' (\(lab.hangy)) called exit(0) in the host's process; the run ended there, "
                    + "unfinished (exit 70)"
            ], "\(replay.standardError)")
    }

    @Test func aForkedChildThatComesBackInAReplayEndsWithOneLineNamingThePluginAndTheResultIsNotDoubled() throws {
        let lab = try ReplayLab(request: "hangy.fork", manager: "ForkReturn")
        let replay = try lab.replay()
        // Diverges: hangy presents `forkedBack` where welcome presented its screen.
        #expect(replay.status == 1, "\(replay.standardOutput)\(replay.standardError)")
        #expect(
            replay.outputLines.filter { $0.hasPrefix("replay of ") }.count == 1, "\(replay.standardOutput)")
        #expect(
            replay.errorLines == [
                "flowhost: plugin 'hangy' (\(lab.hangy)) forked the host, and the child came back into the host's "
                    + "code in `send hangy.fork` (step 1 of session 1 of the replay) instead of running a program or "
                    + "calling _exit; ended the child (the host goes on)"
            ], "\(replay.standardError)")
    }
}

// MARK: - Test Helpers

/// A trace of `send REQUEST` recorded with the welcome plugin handling it, and a manifest that routes the
/// request to the HangyPlugin fixture's `manager` instead.
private struct ReplayLab {
    let directory: TemporaryDirectory
    let hangy: String
    let trace: String
    let replayed: String

    init(request: String, manager: String) throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        func manifest(_ name: String, plugin: String, manager: String) throws -> String {
            try directory.file(
                name,
                containing: """
                    {"manifestVersion": 1,
                     "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                                {"request": "\(request)", "plugin": "\(plugin)", "manager": "\(manager)"}],
                     "start": ["launch"]}
                    """)
        }
        let recorded = try manifest("recorded.json", plugin: "welcome", manager: "Launch")
        let script = try directory.file("app.flow", containing: "send \(request)\n")
        let trace = directory.path + "/app.jsonl"
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"]
        let run = try Subprocess.flowhost(
            ["run", recorded, "--script", script, "--quiet", "--trace", trace], environment: environment)
        try #require(run.status == 0, "\(run.standardError)")
        self.replayed = try manifest("replayed.json", plugin: "hangy", manager: manager)
        self.directory = directory
        self.hangy = hangy
        self.trace = trace
    }

    var environment: [String: String?] {
        ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"]
    }

    /// `flowhost replay TRACE --manifest` the manifest that routes the request to hangy.
    func replay() throws -> Subprocess {
        try Subprocess.flowhost(["replay", trace, "--manifest", replayed], environment: environment)
    }
}
