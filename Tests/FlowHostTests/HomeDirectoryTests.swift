import Glibc
import Testing

/// A plugin that changes `HOME` (the HangyPlugin fixture's `Rehome` manager, to the directory
/// `HANGY_WANDER_TO` names) does not move what `~/` names: the host reads `HOME` once, as the run starts.
/// Otherwise `save ~/h.json` wrote `/tmp/h.json` after a plugin's `setenv("HOME", "/tmp")`, where others can
/// read it and put their own for the next `restore ~/h.json`.
struct HomeDirectoryTests {
    @Test func saveAndRestoreInTheHomeTheRunStartedWithAfterAPluginChangedHOME() throws {
        let scenario = try WorkingDirectoryTests.Scenario()
        try scenario.writeManifest(extra: [#"{"request": "hangy.rehome", "plugin": "hangy", "manager": "Rehome"}"#])
        let home = scenario.start.path + "/home"
        try #require(mkdir(home, 0o700) == 0)
        _ = try scenario.start.file("app.flow", containing: "send hangy.rehome\nsave ~/h.json\nrestore ~/h.json\n")
        var environment = scenario.environment
        environment["HOME"] = home
        let run = try Subprocess.run(
            "/bin/sh", scenario.commandLine(["--script", "app.flow"]), environment: environment.mapValues { $0 })
        #expect(run.status == 0, "\(run.standardError)")
        #expect(access(home + "/h.json", F_OK) == 0, "\(run.standardError)")
        #expect(access(scenario.elsewhere + "/h.json", F_OK) != 0)
    }
}
