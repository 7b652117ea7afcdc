import Foundation
import Glibc
import Testing

/// A plugin that changes the process's working directory (the HangyPlugin fixture's `Wander` manager, to the
/// directory `HANGY_WANDER_TO` names) does not move what the run's relative paths name: the host changes back
/// to the directory it started in before and after each command, and says so once. Otherwise `save snap.json`
/// would write wherever the plugin went (`/tmp`, where others can read it and put their own for the next
/// `restore snap.json`), and `reload manifest` would read another manifest, or none.
struct WorkingDirectoryTests {
    /// A manifest named relatively, `app.json` in ``start``, routing `hangy.wander`, `hangy.wanderlater` and
    /// `hangy.unmask`; and the directory the plugin goes to, ``elsewhere``, another temporary directory.
    struct Scenario {
        let start: TemporaryDirectory
        let other: TemporaryDirectory
        let elsewhere: String

        init() throws {
            start = try TemporaryDirectory()
            other = try TemporaryDirectory()
            elsewhere = other.path
            try writeManifest()
        }

        /// Writes `app.json`, with `extra` routes after the scenario's own.
        func writeManifest(extra: [String] = []) throws {
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
            let routes =
                [
                    #"{"request": "launch", "plugin": "welcome", "manager": "Launch"}"#,
                    #"{"request": "hangy.wander", "plugin": "hangy", "manager": "Wander"}"#,
                    #"{"request": "hangy.wanderlater", "plugin": "hangy", "manager": "WanderLater"}"#,
                    #"{"request": "hangy.unmask", "plugin": "hangy", "manager": "Unmask"}"#,
                ] + extra
            _ = try start.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1,
                     "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                     "routes": [\(routes.joined(separator: ", "))],
                     "start": ["launch"]}
                    """)
        }

        /// The command line that runs `flowhost run app.json` with `options` in ``start``, with umask 022.
        func commandLine(_ options: [String]) throws -> [String] {
            [
                "-c", #"umask 022 && cd "$1" && shift && exec "$@""#, "sh", start.path,
                try BuildProducts.path(of: "flowhost"), "run", "app.json",
            ] + options
        }

        /// The environment of a run: where the plugin goes, and a cache and state of the run's own.
        var environment: [String: String] {
            [
                "HANGY_WANDER_TO": elsewhere, "XDG_CACHE_HOME": start.path + "/cache",
                "XDG_STATE_HOME": start.path + "/state",
            ]
        }

        /// Runs `flowhost run app.json --script app.flow` in ``start``, with umask 022 and `lines` as the script.
        func run(_ lines: String) throws -> Subprocess {
            _ = try start.file("app.flow", containing: lines)
            return try Subprocess.run(
                "/bin/sh", commandLine(["--script", "app.flow"]), environment: environment.mapValues { $0 })
        }

        /// The warning the host prints when it changes back.
        var warning: String {
            "flowhost: warning: plugin code changed the host's working directory to \(elsewhere); changed it back to \(start.path), which the run's relative paths name"
        }
    }

    @Test func saveWritesWhereTheRunStartedAfterAPluginChangedTheWorkingDirectory() throws {
        let scenario = try Scenario()
        let run = try scenario.run("send hangy.wander\nsave snap.json\n")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(access(scenario.start.path + "/snap.json", F_OK) == 0)
        #expect(access(scenario.elsewhere + "/snap.json", F_OK) != 0)
        #expect(run.errorLines.filter { $0 == scenario.warning }.count == 1, "\(run.standardError)")
    }

    /// Each subject's script of `run --subjects` is a run of its own commands: its `save` writes where the run
    /// started too (without the change back there: `snap.json` in the plugin's directory, said nothing of),
    /// after expectations and comments, before which the host does not look (an `expect` only reads the screen).
    @Test func aSubjectsSaveWritesWhereTheRunStartedAfterAPluginChangedTheWorkingDirectory() throws {
        let scenario = try Scenario()
        _ = try scenario.start.file(
            "app.flow", containing: "send hangy.wander\n# gone elsewhere\nexpect modals 0\nsave snap-$SUBJECT.json\n")
        let run = try Subprocess.run(
            "/bin/sh", scenario.commandLine(["--script", "app.flow", "--subjects", "2"]),
            environment: scenario.environment.mapValues { $0 })
        #expect(run.status == 0, "\(run.standardError)")
        for subject in ["subject-0001", "subject-0002"] {
            #expect(access(scenario.start.path + "/snap-\(subject).json", F_OK) == 0, "\(run.standardError)")
            #expect(access(scenario.elsewhere + "/snap-\(subject).json", F_OK) != 0)
        }
        #expect(run.errorLines.filter { $0 == scenario.warning }.count == 2, "\(run.standardError)")
    }

    /// A start directory removed during the run has no path any more: the warning says so, and names it as it
    /// was, rather than `changed it back to /` (the path of a directory `getcwd` cannot find, taken as is).
    @Test func theWarningSaysTheStartDirectoryWasRemovedRatherThanNamingRoot() throws {
        let scenario = try Scenario()
        let shell = try ChildProcess(
            executable: "/bin/sh", arguments: scenario.commandLine([]), connection: .pipes,
            environment: scenario.environment)
        try shell.waitFor("top: welcome")
        try FileManager.default.removeItem(atPath: scenario.start.path)
        try shell.send("send hangy.wander\n")
        try shell.waitFor(
            "flowhost: warning: plugin code changed the host's working directory to \(scenario.elsewhere); changed it back to the directory the run started in, \(scenario.start.path), which has been removed since, so the run's relative paths name nothing"
        )
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func reloadManifestReadsTheRunsManifestAfterAPluginChangedTheWorkingDirectory() throws {
        let scenario = try Scenario()
        let run = try scenario.run("send hangy.wander\nreload manifest\nsend hangy.wander\n")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("reloaded manifest app.json: 4 routes"), "\(run.standardOutput)")
        #expect(run.errorLines.filter { $0 == scenario.warning }.count == 2, "\(run.standardError)")
    }

    /// A service made as the host starts (the fixture's `Wanderer`, which changes directory as it is made) runs
    /// before any command changes back: `--watch` watches the manifest where the run started all the same
    /// (without the change back in `Host.watch`, it watched `app.json` in the service's directory, and an edit
    /// of the run's manifest was never read).
    @Test func aWatchedManifestIsTheRunsAfterAServiceChangedTheWorkingDirectoryAtTheStart() throws {
        let scenario = try Scenario()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        func manifest(routes: Int) -> String {
            let extra = (0..<routes).map { #", {"request": "hangy.w\#($0)", "plugin": "hangy", "manager": "Wander"}"# }
            return """
                {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}\(extra.joined())],
                 "services": [{"plugin": "hangy", "service": "Wanderer"}], "start": ["launch"]}
                """
        }
        _ = try scenario.start.file("app.json", containing: manifest(routes: 0))
        let shell = try ChildProcess(
            executable: "/bin/sh", arguments: scenario.commandLine(["--watch"]), connection: .pipes,
            environment: scenario.environment)
        try shell.waitFor("top: welcome")
        _ = try scenario.start.file("app.json", containing: manifest(routes: 1))
        try shell.waitFor("reloaded manifest app.json: 2 routes")
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func aWatchedManifestIsReadWhereTheRunStartedAfterAPluginThreadChangedTheWorkingDirectory() throws {
        let scenario = try Scenario()
        let go = scenario.other.path + "/go"
        var environment = scenario.environment
        environment["HANGY_WANDER_GO"] = go
        let shell = try ChildProcess(
            executable: "/bin/sh", arguments: scenario.commandLine(["--watch"]), connection: .pipes,
            environment: environment)
        try shell.waitFor("top: welcome")
        try shell.send("send hangy.wanderlater\n")
        try shell.waitFor("top: wanderingLater")
        // Between commands, the plugin's thread changes the working directory; then the manifest is edited.
        _ = try scenario.other.file("go", containing: "")
        try shell.waitFor("wandered off")
        try scenario.writeManifest(extra: [#"{"request": "hangy.again", "plugin": "hangy", "manager": "Wander"}"#])
        try shell.waitFor("reloaded manifest app.json: 5 routes")
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
    }
}
