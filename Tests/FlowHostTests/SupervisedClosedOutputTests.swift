import Glibc
import HostSupport
import Testing

/// `flowhost run --supervise ... | head -1`: the host dies of SIGPIPE writing to the standard output it shares
/// with the supervisor once the reader has gone. That is no crash: the supervisor ends by SIGPIPE too, as a run
/// without `--supervise` does, quietly, restarting and quarantining nothing, its directory removed.
struct SupervisedClosedOutputTests {
    @Test func aSupervisedRunWhoseOutputIsClosedEndsBySIGPIPEWithoutRestarting() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let temporary = scenario.directory.path + "/tmp"
        try #require(mkdir(temporary, 0o700) == 0)
        var environment = scenario.environment
        environment["TMPDIR"] = temporary
        let run = try PipedRun(
            ["run", scenario.manifest, "--supervise"],
            environment: environment)
        let host = try #require(ProcessTable.child(of: run.pid, arguments: ["run"], within: 1000))

        // The start's first line, then the reader goes, as `head -1` does, and a command prints again.
        run.readFirstLineThenCloseOutput()
        run.send("stack\n")
        run.closeInput()
        let (status, errors) = run.finish()

        #expect(!errors.contains("SIGPIPE"), "\(errors)")
        #expect(!errors.contains("restarting"), "\(errors)")
        #expect(status == .signalled(SIGPIPE), "\(errors)")
        #expect(ProcessTable.ends(host))
        let left = try #require(opendir(temporary))
        defer { closedir(left) }
        var names: [String] = []
        while let entry = readdir(left) {
            names.append(String(decoding: directoryEntryName(entry), as: UTF8.self))
        }
        #expect(!names.contains { $0.hasPrefix("flowhost-supervisor") }, "\(names)")
        #expect(try scenario.flowhost(["quarantine", "list"]).outputLines.first == "no library is quarantined")
    }
}

// MARK: - Test Helpers

/// `flowhost` with its standard input, output and error each a pipe of the test's: it writes commands to
/// the first, and closes the reading end of the second when it has read what it wanted, as `head` does.
private final class PipedRun {
    let pid: pid_t
    private var input: Int32
    private var output: Int32
    private let errors: Int32

    init(_ arguments: [String], environment: [String: String]) throws {
        var variables = Subprocess.inheritedVariables()
        variables.merge(environment) { $1 }
        Sanitizer.setChildOptions(in: &variables)
        let pipes = try (0..<3).map { _ in try #require(PipeDescriptors.make()) }
        let launch = ProcessLaunch(
            executable: try BuildProducts.path(of: "flowhost"), arguments: arguments,
            environmentBytes: variables.map { Array("\($0.key)=\($0.value)".utf8) },
            actions: [
                .duplicate(pipes[0].read, onto: STDIN_FILENO), .duplicate(pipes[1].write, onto: STDOUT_FILENO),
                .duplicate(pipes[2].write, onto: STDERR_FILENO),
            ])
        let started = Result { () throws(ProcessLaunch.Failure) in try launch.start() }
        for end in [pipes[0].read, pipes[1].write, pipes[2].write] { close(end) }
        (input, output, errors) = (pipes[0].write, pipes[1].read, pipes[2].read)
        switch started {
        case .success(let started): pid = started
        case .failure(let error):
            for end in [input, output, errors] { close(end) }
            throw TestFailure("cannot run flowhost: \(error)")
        }
    }

    /// Reads standard output up to its first newline (or its end), then closes it.
    func readFirstLineThenCloseOutput() {
        var byte: UInt8 = 0
        while read(output, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
        close(output)
        output = -1
    }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    func closeInput() {
        close(input)
        input = -1
    }

    /// Reads standard error to its end and waits for the program: how it ended, and what it wrote there.
    func finish() -> (ChildProcess.Ending, String) {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(errors, &buffer, buffer.count)
            if count > 0 {
                collected += buffer[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let ending: ChildProcess.Ending =
            (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        return (ending, String(decoding: collected, as: UTF8.self))
    }

    deinit {
        for end in [input, output, errors] where end >= 0 { close(end) }
    }
}
