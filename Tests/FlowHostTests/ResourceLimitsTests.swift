import FlowKit
import Glibc
import Testing

/// A plugin that lowers the process's limit on the size of a file it writes (the HangyPlugin fixture's
/// `LimitFileSize` manager, which sets `RLIMIT_FSIZE` to 100 bytes) does not cut the files the run writes: the
/// host sets the limits it started with back before and after each command, and says so once. Otherwise
/// `save snap.json` failed with `File too large`, and the trace ended empty with exit 74.
struct ResourceLimitsTests {
    @Test func theSnapshotAndTheTraceAreWrittenWholeAfterAPluginLoweredTheLimitOnFileSize() throws {
        let scenario = try WorkingDirectoryTests.Scenario()
        try scenario.writeManifest(extra: [
            #"{"request": "hangy.limit", "plugin": "hangy", "manager": "LimitFileSize"}"#
        ])

        _ = try scenario.start.file("app.flow", containing: "send hangy.limit\nsave snap.json\nstack\n")

        let run = try Subprocess.run(
            "/bin/sh", scenario.commandLine(["--script", "app.flow", "--trace", "t.jsonl"]),
            environment: scenario.environment.mapValues { $0 })

        #expect(run.status == 0, "\(run.standardError)")
        let snapshot = try JSONValue(parsing: try readText(scenario.start.path + "/snap.json"))
        #expect(snapshot["flow"] != nil, "a whole snapshot")
        let trace = try readText(scenario.start.path + "/t.jsonl").split(separator: "\n")
        #expect(trace.count > 10 && trace.allSatisfy { (try? JSONValue(parsing: String($0))) != nil })
        // The limit flowhost started with, this test's.
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0)
        let started = limit.rlim_cur == rlim_t.max ? "unlimited" : "\(limit.rlim_cur) bytes"
        let warning =
            "flowhost: warning: plugin code changed the host's limit on the size of a file it writes (RLIMIT_FSIZE) "
            + "to 100 bytes; set it back to \(started)"
        #expect(run.errorLines.filter { $0 == warning }.count == 1, "\(run.standardError)")
    }
}
