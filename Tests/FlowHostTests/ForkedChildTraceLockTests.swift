import Glibc
import Testing

/// A helper that plugin code forks and leaves running (the HangyPlugin fixture's `Daemon`: its standard
/// descriptors on `/dev/null`, every other one it inherited kept) holds no lock on the run's trace once the run
/// has ended, supervised or not: the next run writes the same trace. Before, the helper kept the trace's `flock`,
/// which belongs to the open file the helper shared, and the next run was refused, exit 73, blaming the run that
/// had ended: `process N holds a lock on it (a run holds one on its trace while it writes it)`.
struct ForkedChildTraceLockTests {
    @Test(arguments: [[], ["--supervise"]])
    func aHelperLeftRunningHoldsNoLockOnTheTrace(mode: [String]) throws {
        let directory = try TemporaryDirectory()
        let trace = directory.path + "/run.jsonl"
        let pidFile = directory.path + "/daemon.pid"
        defer { Self.end(helperIn: pidFile) }

        let first = try FixtureRun(
            request: "hangy.daemon", manager: "Daemon", script: "send hangy.daemon\n",
            arguments: mode + ["--trace", trace],
            environment: ["HANGY_DAEMON_PID": pidFile])
        #expect(first.run.status == 0, "\(first.run.standardError)")
        let helper = try #require(Self.helper(in: pidFile), "the helper wrote no process id")
        #expect(kill(helper, 0) == 0, "the helper has ended: the test shows nothing")

        let descriptor = open(trace, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0, "the helper holds the trace's lock")
        flock(descriptor, LOCK_UN)
        let next = try FixtureRun(
            request: "hangy.daemon", manager: "Daemon", script: "stack\n", arguments: mode + ["--trace", trace])
        #expect(next.run.status == 0, "\(next.run.standardError)")
        #expect(next.run.errorLines.isEmpty, "\(next.run.standardError)")
    }

    /// The helper's process id, once it has written it (within 5 s).
    private static func helper(in pidFile: String) -> pid_t? {
        for _ in 0..<500 {
            if let text = try? readText(pidFile), text.hasSuffix("\n"), let pid = pid_t(text.dropLast()) { return pid }
            usleep(10_000)
        }
        return nil
    }

    private static func end(helperIn pidFile: String) {
        if let text = try? readText(pidFile), let pid = pid_t(text.dropLast()), pid > 0 { kill(pid, SIGKILL) }
    }
}
