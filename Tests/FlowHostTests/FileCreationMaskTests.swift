import Glibc
import Testing

/// A plugin that changes the process's file creation mask (the HangyPlugin fixture's `Unmask` manager, which
/// calls `umask(0)`) does not change the permissions of the files the run makes: the host sets the mask it
/// started with back before and after each command, and says so once. Otherwise `save snap.json` would be
/// made with mode 0666, and any user could change the snapshot a later `restore` replays.
struct FileCreationMaskTests {
    @Test func saveMakesTheSnapshotUnderTheMaskTheRunStartedWithAfterAPluginChangedIt() throws {
        let scenario = try WorkingDirectoryTests.Scenario()
        let run = try scenario.run("send hangy.unmask\nsave snap.json\n")
        #expect(run.status == 0, "\(run.standardError)")
        var status = stat()
        try #require(stat(scenario.start.path + "/snap.json", &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o644)
        let warning =
            "flowhost: warning: plugin code changed the host's file creation mask (umask) to 0000; set it back to 0022"
        #expect(run.errorLines.filter { $0 == warning }.count == 1, "\(run.standardError)")
    }
}
