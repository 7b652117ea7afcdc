import Glibc
import HostSupport
import Testing

/// The one way the host, its supervisor, the benchmarks and the tests start a program.
struct ProcessLaunchTests {
    private func exitStatus(of pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }

    @Test func theProgramGetsItsArgumentsItsEnvironmentAndItsDescriptors() throws {
        let made = try #require(PipeDescriptors.make())
        let ends = [made.read, made.write]
        let launch = ProcessLaunch(
            executable: "/bin/sh", arguments: ["-c", "printf '%s %s' \"$1\" \"$GREETING\" >&5; exit 3", "sh", "hello"],
            environment: ["GREETING=world"],
            actions: [.duplicate(ends[1], onto: 5), .open(STDOUT_FILENO, path: "/dev/null", flags: O_WRONLY)])
        let pid = try launch.start()
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(ends[0], &buffer, buffer.count)
        close(ends[0])
        #expect(String(decoding: buffer[..<max(count, 0)], as: UTF8.self) == "hello world")
        #expect(exitStatus(of: pid) == 3)
    }

    @Test func aProgramThatCannotStartSaysWhy() {
        let launch = ProcessLaunch(executable: "/nonexistent/program", arguments: [], environment: [])
        #expect(throws: ProcessLaunch.Failure.self) { try launch.start() }
        do {
            _ = try launch.start()
        } catch {
            #expect(error.description == "No such file or directory")
        }
    }
}
