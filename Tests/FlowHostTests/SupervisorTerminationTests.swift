import Glibc
import Testing

/// A supervisor at its prompt ended by a signal, as a person or a system ends it: the terminal closed (SIGHUP),
/// a stop from a service manager (SIGTERM). It removes its directory in `$TMPDIR`, whose
/// snapshot holds the session's state, as its normal end does; before, a `defer` that no signal runs was all
/// that removed it, and each such end left one behind.
struct SupervisorTerminationTests {
    @Test(arguments: [SIGHUP, SIGTERM])
    func aSignalLeavesNoDirectoryOfTheSupervisorsBehind(signal: Int32) throws {
        let directory = try TemporaryDirectory()
        let temporary = directory.path + "/tmp"
        try #require(mkdir(temporary, 0o700) == 0)
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--supervise"], connection: .terminal(controlling: true),
            environment: directory.environment().merging(["TMPDIR": temporary]) { $1 })
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        #expect(try Self.entries(of: temporary).contains { $0.hasPrefix("flowhost-supervisor-") })

        shell.signal(signal)

        #expect(try shell.waitForExit() == .signalled(signal))
        #expect(try Self.entries(of: temporary) == [])
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
        return names
    }
}
