import Glibc
import Testing

/// `flowhost replay` changes back to the directory it started in before each input, as `run` does before each
/// command, so that a recorded `reload manifest` reads the manifest the replay was given.
extension WorkingDirectoryTests {
    @Test func replayReloadsTheManifestItWasGivenAfterAPluginChangedTheWorkingDirectory() throws {
        let scenario = try Scenario()
        _ = try scenario.start.file("app.flow", containing: "send hangy.wander\nreload manifest\nsend hangy.wander\n")
        let run = try Subprocess.run(
            "/bin/sh", scenario.commandLine(["--script", "app.flow", "--trace", "t.jsonl", "--quiet"]),
            environment: scenario.environment.mapValues { $0 })
        try #require(run.status == 0, "\(run.standardError)")
        let flowhost = try BuildProducts.path(of: "flowhost")

        // Given relatively, as the run's own was: read where the replay started, not where the plugin went.
        let replay = try Subprocess.run(
            "/bin/sh",
            [
                "-c", #"cd "$1" && shift && exec "$@""#, "sh", scenario.start.path, flowhost, "replay", "t.jsonl",
                "--manifest", "app.json",
            ], environment: scenario.environment.mapValues { $0 })

        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(replay.standardOutput.hasPrefix("replay identical: "), "\(replay.standardOutput)")
        #expect(replay.errorLines.filter { $0 == scenario.warning }.count == 1, "\(replay.standardError)")
    }
}
