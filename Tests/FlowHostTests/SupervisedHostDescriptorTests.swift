import Glibc
import Testing

/// The descriptors a supervisor gives its host beyond the standard three: the link (3), the lock on the
/// supervisor's directory (4) and the commands (5). The host keeps them, closed on `exec`: a program that plugin
/// code starts holds none (it held the link's write end, so the supervisor could not see the host's end of it),
/// and its standard input is `/dev/null`, not the commands.
struct SupervisedHostDescriptorTests {
    @Test func theLinkTheLockAndTheCommandsAreClosedOnExecInTheHost() throws {
        let directory = try TemporaryDirectory()
        let supervisor = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--supervise"], connection: .pipes,
            environment: directory.environment())
        try supervisor.waitFor("top: welcome")
        let host = try #require(ProcessTable.child(of: supervisor.pid, arguments: ["run"], within: 500))

        for descriptor in [3, 4, 5] {
            let flags = try #require(Self.flags(of: descriptor, in: host), "descriptor \(descriptor) is open")
            #expect(flags & Int(O_CLOEXEC) != 0, "descriptor \(descriptor): flags \(String(flags, radix: 8))")
        }
        var input = [CChar](repeating: 0, count: 256)
        let length = readlink("/proc/\(host)/fd/0", &input, input.count)
        let target = String(decoding: input.prefix(max(length, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(target == "/dev/null")

        try supervisor.send("quit\n")
        #expect(try supervisor.waitForExit() == .exited(0))
    }

    /// The `flags:` field of `/proc/PID/fdinfo/DESCRIPTOR`, in octal there.
    private static func flags(of descriptor: Int, in pid: pid_t) -> Int? {
        let path = "/proc/\(pid)/fdinfo/\(descriptor)"
        guard let file = fopen(path, "re") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("flags:") {
                return Int(text.dropFirst("flags:".count).filter { !$0.isWhitespace }, radix: 8)
            }
        }
        return nil
    }
}
