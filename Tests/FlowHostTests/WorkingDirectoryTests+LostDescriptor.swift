import Foundation
import Glibc
import Testing

/// Plugin code that closes the descriptor the host holds of the directory the run started in, or puts another
/// file in its place (`dup2`), does not keep the host from changing back: it changes back by the start's path
/// when that still leads to the same directory, holds it open anew, and says how; when the path leads
/// elsewhere, it says it cannot change back. Otherwise the run's relative paths silently followed the plugin.
extension WorkingDirectoryTests {
    /// The warning when the host changed back by the start's path.
    private func warningByPath(_ scenario: Scenario) -> String {
        "flowhost: warning: plugin code changed the host's working directory to \(scenario.elsewhere); changed it back to \(scenario.start.path) (by its path: plugin code closed or replaced the host's descriptor of the directory the run started in), which the run's relative paths name"
    }

    @Test(arguments: ["replace", "close"])
    func saveWritesWhereTheRunStartedAfterAPluginTookTheHeldDescriptor(_ unhold: String) throws {
        let scenario = try Scenario()
        try scenario.writeManifest(extra: [
            #"{"request": "hangy.wanderunheld", "plugin": "hangy", "manager": "WanderUnheld"}"#
        ])
        _ = try scenario.start.file(
            "app.flow", containing: "send hangy.wanderunheld\nsave snap.json\nsend hangy.wander\nsave snap2.json\n")
        var environment = scenario.environment
        environment["HANGY_UNHOLD"] = unhold
        let run = try Subprocess.run(
            "/bin/sh", scenario.commandLine(["--script", "app.flow"]), environment: environment.mapValues { $0 })

        #expect(run.status == 0, "\(run.standardError)")
        for file in ["snap.json", "snap2.json"] {
            #expect(access(scenario.start.path + "/" + file, F_OK) == 0, "\(run.standardError)")
            #expect(access(scenario.elsewhere + "/" + file, F_OK) != 0)
        }
        #expect(run.errorLines.filter { $0 == warningByPath(scenario) }.count == 1, "\(run.standardError)")
        // The directory held anew: the next change back goes through it, as before the plugin took the first.
        #expect(run.errorLines.filter { $0 == scenario.warning }.count == 1, "\(run.standardError)")
    }

    /// The start's path now names another directory (the start renamed, another made in its place): changing
    /// there would be changing to a directory the run did not start in, so the host says it cannot change back.
    @Test func theWarningSaysTheHostCannotChangeBackWhenTheStartsPathLeadsElsewhere() throws {
        let scenario = try Scenario()
        try scenario.writeManifest(extra: [
            #"{"request": "hangy.wanderunheld", "plugin": "hangy", "manager": "WanderUnheld"}"#
        ])
        let shell = try ChildProcess(
            executable: "/bin/sh", arguments: scenario.commandLine([]), connection: .pipes,
            environment: scenario.environment)
        try shell.waitFor("top: welcome")
        let moved = scenario.start.path + "-moved"
        try FileManager.default.moveItem(atPath: scenario.start.path, toPath: moved)
        defer { try? FileManager.default.removeItem(atPath: moved) }
        try FileManager.default.createDirectory(atPath: scenario.start.path, withIntermediateDirectories: false)
        try shell.send("send hangy.wanderunheld\n")
        try shell.waitFor(
            "flowhost: warning: plugin code changed the host's working directory to \(scenario.elsewhere); plugin code closed or replaced the host's descriptor of the directory the run started in, and its path \(scenario.start.path) leads to another directory or none, so the host cannot change back: the run's relative paths name files at that path, wherever it leads"
        )
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
    }
}
