import Foundation
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

    /// A host outlives its supervisor's SIGKILL by a few seconds while a plugin holds its main thread, and saves
    /// its snapshot in the directory meanwhile: the directory is kept until the host has ended too.
    @Test func theDirectoryOfAKilledSupervisorIsKeptWhileItsHostRuns() throws {
        let directory = try TemporaryDirectory()
        let temporary = directory.path + "/tmp"
        try #require(mkdir(temporary, 0o700) == 0)
        let environment = directory.environment().merging(["TMPDIR": temporary]) { $1 }
        let manifest = try directory.spinningManifest()
        let script = try directory.file("app.flow", containing: "send hangy.spin\n")
        let killed = try ChildProcess.flowhost(
            ["run", manifest, "--supervise", "--hang-timeout", "0", "--script", script], connection: .pipes,
            environment: environment)
        try killed.waitFor("> send hangy.spin", within: .seconds(30))
        let host = try #require(ProcessTable.child(of: killed.pid, arguments: ["run"], within: 500))
        let left = try Self.entries(of: temporary)
        try #require(left.count == 1)
        killed.signal(SIGKILL)
        #expect(try killed.waitForExit() == .signalled(SIGKILL))

        let next = try Self.supervisor(environment)
        try next.send("quit\r")
        #expect(try next.waitForExit() == .exited(0))
        #expect(try Self.entries(of: temporary) == left, "removed while its host ran")

        #expect(ProcessTable.ends(host, within: 2000))  // The orphaned host ends itself (5 s).
        let last = try Self.supervisor(environment)
        try last.send("quit\r")
        #expect(try last.waitForExit() == .exited(0))
        #expect(try Self.entries(of: temporary) == [])
    }

    /// A directory left with a file the supervisor does not know (a snapshot's temporary file, from a host killed
    /// while it saved) is removed whole; a symbolic link named like a supervisor's directory is not followed.
    @Test func aLeftDirectoryIsRemovedWholeAndALinkIsNotFollowed() throws {
        let directory = try TemporaryDirectory()
        let temporary = directory.path + "/tmp"
        try #require(mkdir(temporary, 0o700) == 0)
        let environment = directory.environment().merging(["TMPDIR": temporary]) { $1 }
        let elsewhere = directory.path + "/elsewhere"
        for path in ["tmp/flowhost-supervisor-left", "elsewhere"] {
            try #require(mkdir(directory.path + "/" + path, 0o700) == 0)
            for file in ["lock", "snapshot.json", "snapshot.json.tmp-1"] {
                _ = try directory.file(path + "/" + file, containing: "{}")
            }
        }
        try #require(symlink(elsewhere, temporary + "/flowhost-supervisor-link") == 0)

        let next = try Self.supervisor(environment)
        try next.send("quit\r")
        #expect(try next.waitForExit() == .exited(0))

        #expect(try Self.entries(of: temporary) == ["flowhost-supervisor-link"])
        #expect(try Self.entries(of: elsewhere) == ["lock", "snapshot.json", "snapshot.json.tmp-1"])
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
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}
