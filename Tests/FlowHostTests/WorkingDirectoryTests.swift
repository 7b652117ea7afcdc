import Glibc
import Testing

/// A plugin that changes the process's working directory (the HangyPlugin fixture's `Wander` manager, to the
/// directory `HANGY_WANDER_TO` names) does not move what the run's relative paths name: the host changes back
/// to the directory it started in before and after each command, and says so once. Otherwise `save snap.json`
/// would write wherever the plugin went (`/tmp`, where others can read it and put their own for the next
/// `restore snap.json`), and `reload manifest` would read another manifest, or none.
struct WorkingDirectoryTests {
    /// A manifest named relatively, `app.json` in ``start``, routing `hangy.wander` and `hangy.unmask`; and the directory the
    /// plugin goes to, ``elsewhere``, another temporary directory.
    struct Scenario {
        let start: TemporaryDirectory
        let other: TemporaryDirectory
        let elsewhere: String

        init() throws {
            start = try TemporaryDirectory()
            other = try TemporaryDirectory()
            elsewhere = other.path
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
            _ = try start.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1,
                     "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                                {"request": "hangy.wander", "plugin": "hangy", "manager": "Wander"},
                                {"request": "hangy.unmask", "plugin": "hangy", "manager": "Unmask"}],
                     "start": ["launch"]}
                    """)
        }

        /// Runs `flowhost run app.json --script app.flow` in ``start``, with umask 022 and `lines` as the script.
        func run(_ lines: String) throws -> Subprocess {
            _ = try start.file("app.flow", containing: lines)
            return try Subprocess.run(
                "/bin/sh",
                [
                    "-c", #"umask 022 && cd "$1" && shift && exec "$@""#, "sh", start.path,
                    BuildProducts.path(of: "flowhost"),
                    "run", "app.json", "--script", "app.flow",
                ],
                environment: [
                    "HANGY_WANDER_TO": elsewhere, "XDG_CACHE_HOME": start.path + "/cache",
                    "XDG_STATE_HOME": start.path + "/state",
                ])
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

    @Test func reloadManifestReadsTheRunsManifestAfterAPluginChangedTheWorkingDirectory() throws {
        let scenario = try Scenario()
        let run = try scenario.run("send hangy.wander\nreload manifest\nsend hangy.wander\n")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("reloaded manifest app.json: 3 routes"), "\(run.standardOutput)")
        #expect(run.errorLines.filter { $0 == scenario.warning }.count == 2, "\(run.standardError)")
    }
}
