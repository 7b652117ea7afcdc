import Glibc
import Testing

/// A supervised host whose supervisor is killed while a plugin holds the host's main thread: nothing reads
/// its input and no watchdog is left, so it ends itself a few seconds later rather than spinning for good.
struct SupervisorOrphanTests {
    @Test func aHungHostWhoseSupervisorIsKilledEndsWithinSeconds() throws {
        let scenario = try SupervisorWatchdogTests.Scenario(start: ["launch", "hangy.spin"])
        let supervisor = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--hang-timeout", "600"], connection: .pipes,
            environment: scenario.environment)
        var host: pid_t?
        var spinning = 0
        for _ in 0..<1_000 where spinning < 20 {
            host = host ?? Self.child(of: supervisor.pid, running: "run")
            // Running, not waiting for input, a hundredth of a second apart: the manager spins.
            spinning = host.flatMap(Self.state) == "R" ? spinning + 1 : 0
            usleep(10_000)
        }
        let found = try #require(host, "the supervisor started no host")
        try #require(spinning == 20, "the host \(found) is not spinning")

        supervisor.signal(SIGKILL)
        _ = try supervisor.waitForExit()

        var ended = false
        for _ in 0..<150 where !ended {
            ended = Self.state(of: found).map { $0 == "Z" } ?? true
            usleep(100_000)
        }
        #expect(ended, "the host \(found) outlived its killed supervisor by more than 15 s")
        if !ended { kill(found, SIGKILL) }
    }

    /// The process `parent` started whose second argument is `subcommand` (`flowhost run ...`), if any.
    static func child(of parent: pid_t, running subcommand: String) -> pid_t? {
        guard let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(name), let stat = try? readText("/proc/\(name)/stat") else { continue }
            // `PID (COMMAND) STATE PPID ...`: the parent follows the state, after the last parenthesis.
            let fields = stat[stat.index(after: stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == parent,
                let arguments = try? readText("/proc/\(name)/cmdline").split(separator: "\0")
            else { continue }
            if arguments.count > 1, arguments[1] == subcommand { return pid }
        }
        return nil
    }

    /// The state letter of process `pid` (`R`, `S`, `Z`), or `nil` when it is gone.
    static func state(of pid: pid_t) -> Character? {
        guard let stat = try? readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }
}
