import Glibc
import Testing

/// A supervisor ended by SIGKILL (a service manager's stop timeout, the kernel out of memory) runs no code of its
/// own and leaves its directory in `$TMPDIR`, with the session's snapshot. Before, every such end left one for good,
/// and they piled up; now the next supervisor of the same user removes it, and not the directory of one that runs.
struct AbandonedSupervisorDirectoryTests {
    @Test func theNextSupervisorRemovesTheDirectoryOfAKilledOneAndKeepsThatOfARunningOne() throws {
        let directory = try TemporaryDirectory()
        let temporary = directory.path + "/tmp"
        try #require(mkdir(temporary, 0o700) == 0)
        let environment = directory.environment().merging(["TMPDIR": temporary]) { $1 }

        let killed = try Self.supervisor(environment)
        let left = try Self.entries(of: temporary)
        #expect(left.count == 1)
        killed.signal(SIGKILL)
        #expect(try killed.waitForExit() == .signalled(SIGKILL))
        #expect(try Self.entries(of: temporary) == left, "SIGKILL leaves the directory")

        let running = try Self.supervisor(environment)
        let runnings = try Self.entries(of: temporary).filter { !left.contains($0) }
        #expect(runnings.count == 1)

        let next = try Self.supervisor(environment)
        try next.send("quit\r")
        #expect(try next.waitForExit() == .exited(0))

        #expect(try Self.entries(of: temporary) == runnings)
        try running.send("quit\r")
        #expect(try running.waitForExit() == .exited(0))
        #expect(try Self.entries(of: temporary) == [])
    }

    // MARK: - Test Helpers

    /// A supervised demo at its prompt.
    private static func supervisor(_ environment: [String: String]) throws -> ChildProcess {
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--supervise"], connection: .terminal(controlling: true),
            environment: environment)
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        return shell
    }

    private static func entries(of path: String) throws -> [String] {
        let stream = try #require(opendir(path))
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
