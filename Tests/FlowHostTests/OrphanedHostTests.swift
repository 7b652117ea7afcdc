import Glibc
import Testing

/// A supervised host whose supervisor was killed while a plugin held the host's main thread: it ends itself,
/// and says so where the person sees it, though the supervisor that relayed its standard error is gone.
struct OrphanedHostTests {
    @Test func anOrphanedHostSaysOnTheTerminalThatItEndsItself() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.spinningManifest()
        let script = try directory.file("app.flow", containing: "send hangy.spin\n")
        let environment = directory.environment().merging(["XDG_CACHE_HOME": directory.path + "/cache"]) { $1 }
        // A shell leads the terminal's session, as a person's does: killing flowhost leaves the terminal to it.
        let flowhost = try BuildProducts.path(of: "flowhost")
        let session = try ChildProcess(
            executable: "/bin/sh",
            arguments: [
                "-c", #""$0" run "$1" --supervise --hang-timeout 0 --script "$2"; sleep 30"#, flowhost, manifest,
                script,
            ],
            connection: .terminal(controlling: true), environment: environment)
        defer { session.signal(SIGKILL) }
        try session.waitFor("> send hangy.spin", within: .seconds(30))
        let supervisor = try #require(ProcessTable.child(of: session.pid, arguments: ["run"], within: 500))
        let host = try #require(ProcessTable.child(of: supervisor, arguments: ["run"], within: 500))

        kill(supervisor, SIGKILL)

        try session.waitFor(
            "flowhost: the supervisor ended and this host did not end within 5 s (a plugin holds its main thread); ending it",
            within: .seconds(20))
        #expect(ProcessTable.ends(host, within: 500))
    }
}
