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
            host = host ?? ProcessTable.child(of: supervisor.pid, arguments: ["run"])
            // Running, not waiting for input, a hundredth of a second apart: the manager spins.
            spinning = host.flatMap(ProcessTable.state(of:)) == "R" ? spinning + 1 : 0
            usleep(10_000)
        }
        let found = try #require(host, "the supervisor started no host")
        try #require(spinning == 20, "the host \(found) is not spinning")

        supervisor.signal(SIGKILL)
        _ = try supervisor.waitForExit()

        let ended = ProcessTable.ends(found, within: 1_500)
        #expect(ended, "the host \(found) outlived its killed supervisor by more than 15 s")
        if !ended { kill(found, SIGKILL) }
    }
}
