import Foundation
import Glibc
import Testing

/// A supervisor at its prompt ended by a signal, as a person or a system ends it: the terminal closed (SIGHUP),
/// a stop from a service manager (SIGTERM). It removes its directory in `$TMPDIR`, whose
/// snapshot holds the session's state, as its normal end does; before, a `defer` that no signal runs was all
/// that removed it, and each such end left one behind.
///
/// With a file in it that the supervisor does not write itself (a snapshot's temporary file, left by a host killed
/// as it saved), the directory went on being left, and without its lock, so that no later supervisor swept it.
struct SupervisorTerminationTests {
    /// `signal` 0: `quit` typed at the prompt.
    @Test(arguments: [SIGHUP, SIGTERM, 0], [false, true])
    func aSignalLeavesNoDirectoryOfTheSupervisorsBehind(signal: Int32, withStrayFile: Bool) throws {
        let directory = try TemporaryDirectory()
        let temporary = directory.path + "/tmp"
        try #require(mkdir(temporary, 0o700) == 0)
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--supervise"], connection: .terminal(controlling: true),
            environment: directory.environment().merging(["TMPDIR": temporary]) { $1 })
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let own = try #require(try Self.entries(of: temporary).first { $0.hasPrefix("flowhost-supervisor-") })
        if withStrayFile {
            _ = try directory.file("tmp/\(own)/snapshot.json.tmp-AbCdEf", containing: "{}")
        }

        if signal == 0 {
            try shell.send("quit\r")
            #expect(try shell.waitForExit() == .exited(0))
        } else {
            shell.signal(signal)
            #expect(try shell.waitForExit() == .signalled(signal))
        }
        #expect(try Self.entries(of: temporary) == [])
    }

    private static func entries(of path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}
