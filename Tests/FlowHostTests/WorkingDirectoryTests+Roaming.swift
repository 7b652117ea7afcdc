import Foundation
import Glibc
import Testing

/// A plugin's thread that keeps changing the process's working directory while commands run (the HangyPlugin
/// fixture's `Roam` manager) does not move what the run's relative paths name: the host names them by the
/// directory it started in, not by the working directory of the moment, which its change back before each
/// command cannot hold against a thread. Without that, `save snap.json` landed in the plugin's directory (and
/// its temporary file, or one and not the other) in most runs, `restore session.json` read a file another user
/// planted there, and `reload manifest` took another manifest, all without a word.
extension WorkingDirectoryTests {
    /// The scenario, with `hangy.roam` routed too (5 routes).
    private func roamingScenario() throws -> Scenario {
        let scenario = try Scenario()
        try scenario.writeManifest(extra: [#"{"request": "hangy.roam", "plugin": "hangy", "manager": "Roam"}"#])
        return scenario
    }

    /// Ten saves, each a chance for the thread to win the race.
    @Test func saveWritesWhereTheRunStartedWhileAPluginThreadKeepsChangingTheWorkingDirectory() throws {
        let scenario = try roamingScenario()
        let files = (1...10).map { "snap\($0).json" }
        let run = try scenario.run("send hangy.roam\n" + files.map { "save \($0)\n" }.joined())
        #expect(run.status == 0, "\(run.standardError)")
        for file in files {
            #expect(access(scenario.start.path + "/" + file, F_OK) == 0, "\(file): \(run.standardError)")
        }
        // Nothing in the plugin's directory: neither a snapshot nor a temporary file written before its rename.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scenario.elsewhere) == [])
    }

    /// At the prompt (commands read from a pipe), as in a script.
    @Test func saveAtThePromptWritesWhereTheRunStartedWhileAPluginThreadKeepsChangingTheWorkingDirectory() throws {
        let scenario = try roamingScenario()
        let shell = try ChildProcess(
            executable: "/bin/sh", arguments: scenario.commandLine([]), connection: .pipes,
            environment: scenario.environment)
        try shell.waitFor("top: welcome")
        try shell.send("send hangy.roam\n")
        try shell.waitFor("top: roaming")
        for number in 1...5 {
            try shell.send("save prompt\(number).json\n")
            try shell.waitFor("saved prompt\(number).json")
        }
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
        for number in 1...5 {
            #expect(access(scenario.start.path + "/prompt\(number).json", F_OK) == 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scenario.elsewhere) == [])
    }

    /// What another user planted in the plugin's directory is never restored: it is not a snapshot, so that
    /// reading it would fail the script.
    @Test func restoreReadsTheRunsSnapshotWhileAPluginThreadKeepsChangingTheWorkingDirectory() throws {
        let scenario = try roamingScenario()
        _ = try scenario.other.file("session.json", containing: "planted\n")
        let restores = String(repeating: "restore session.json\n", count: 5)
        let run = try scenario.run("save session.json\nsend hangy.roam\n" + restores)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.filter { $0.contains("(from session.json)") }.count == 5, "\(run.standardOutput)")
    }
}
