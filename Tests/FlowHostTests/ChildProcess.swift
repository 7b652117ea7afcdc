import Foundation
import Glibc
import HostSupport

/// A child process driven the way a person or a pipeline drives it: the test writes to its standard input
/// and waits, with a deadline, for what it prints.
///
/// Its standard input and output are either a ``PseudoTerminal`` or two pipes (standard error goes where
/// standard output goes). Nothing here sleeps: every wait is `poll()` on the output with a deadline.
final class ChildProcess {
    /// How the child's standard input and output are connected.
    enum Connection {
        /// A pseudo-terminal. `controlling`: the child starts a session and the terminal becomes its
        /// controlling terminal, as under a login shell; otherwise it runs in a process group of its own in
        /// the test's session, where a stop signal stops it (in a session of its own nobody could resume it,
        /// so the kernel discards stop signals there).
        case terminal(controlling: Bool)
        case pipes
    }

    /// How the child ended.
    enum Ending: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    let pid: pid_t
    /// The pseudo-terminal, for a ``Connection/terminal(controlling:)`` child.
    let terminal: PseudoTerminal?
    private var input: Int32
    private let output: Int32
    private var outputOpen = true
    /// Everything the child printed so far.
    private(set) var transcript: [UInt8] = []
    /// ``transcript`` as a quoted string, control characters escaped, for a failure's message.
    var quotedTranscript: String { String(decoding: transcript, as: UTF8.self).debugDescription }
    /// Where the next ``waitFor(_:within:)`` starts looking in ``transcript``.
    private var consumed = 0
    private var ending: Ending?

    /// Starts the built `flowhost` with `arguments` and the test's environment plus `environment`, and
    /// `entries` as ``init(executable:arguments:connection:environment:entries:)`` takes them.
    static func flowhost(
        _ arguments: [String], connection: Connection = .terminal(controlling: true),
        environment: [String: String] = [:], entries: [[UInt8]] = []
    ) throws -> ChildProcess {
        try ChildProcess(
            executable: BuildProducts.path(of: "flowhost"), arguments: arguments, connection: connection,
            environment: environment, entries: entries)
    }

    /// Starts `executable` with the test's environment plus `environment`, then `entries`: `NAME=value`
    /// entries as bytes, for an environment a dictionary of strings cannot hold (one name twice, a value that
    /// is not UTF-8), whose names are not taken from the test's environment.
    init(
        executable: String, arguments: [String], connection: Connection, environment: [String: String],
        entries: [[UInt8]] = []
    ) throws {
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        Sanitizer.setChildOptions(in: &merged)
        let named = entries.map { Array($0.prefix { $0 != UInt8(ascii: "=") }) }
        merged = merged.filter { variable in !named.contains { $0.elementsEqual(variable.key.utf8) } }
        var launch = ProcessLaunch(
            executable: executable, arguments: arguments,
            environmentBytes: merged.map { Array("\($0.key)=\($0.value)".utf8) } + entries)
        // Default signal handling and no blocked signals, whatever the test runner's threads have.
        launch.resetsAllSignals = true

        var childEnds: [Int32] = []
        switch connection {
        case .terminal(let controlling):
            let terminal = try PseudoTerminal()
            self.terminal = terminal
            input = fcntl(terminal.master, F_DUPFD_CLOEXEC, 0)
            output = terminal.master
            if controlling {
                // A session leader without a controlling terminal acquires the first terminal it opens.
                launch.newSession = true
                launch.actions += [
                    .open(0, path: terminal.slavePath, flags: O_RDWR), .duplicate(0, onto: 1), .duplicate(0, onto: 2),
                ]
            } else {
                launch.newProcessGroup = true
                launch.actions += (0...2).map { .duplicate(terminal.slave, onto: Int32($0)) }
            }
        case .pipes:
            terminal = nil
            guard let toChild = PipeDescriptors.make(), let fromChild = PipeDescriptors.make() else {
                throw TestFailure("pipe: \(String(cString: strerror(errno)))")
            }
            input = toChild.write
            output = fromChild.read
            childEnds = [toChild.read, fromChild.write]
            launch.actions += [
                .duplicate(toChild.read, onto: 0), .duplicate(fromChild.write, onto: 1),
                .duplicate(fromChild.write, onto: 2),
            ]
        }
        // Descriptors other tests opened without close-on-exec stay out of this child.
        launch.actions += Self.openDescriptors().filter { $0 > 2 }.map { .close($0) }

        let started = Result { () throws(ProcessLaunch.Failure) in try launch.start() }
        for fd in childEnds { close(fd) }
        self.pid = try started.mapError { TestFailure("posix_spawn \(executable): \($0)") }.get()
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
    }

    private static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = String(decoding: directoryEntryName(entry), as: UTF8.self)
            if let fd = Int32(name), fd != own { descriptors.append(fd) }
        }
        return descriptors
    }

    // MARK: - Driving

    /// Writes `text` to the child's standard input, as typed or piped.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN {
                // The terminal's input queue is full (the master side is non-blocking): wait until it drains.
                var descriptor = pollfd(fd: input, events: Int16(POLLOUT), revents: 0)
                guard poll(&descriptor, 1, 10_000) > 0 else { throw TestFailure("the child stopped reading its input") }
                continue
            }
            guard count > 0 else { throw TestFailure("writing to the child: \(String(cString: strerror(errno)))") }
            written += count
        }
    }

    /// Closes the child's standard input: end of file for a pipe. (On a terminal, type Ctrl-D instead.)
    func closeInput() {
        close(input)
        input = -1
    }

    /// Waits until the child has printed `text` after what earlier waits matched.
    ///
    /// - Returns: What it printed from the end of the previous match to the end of this one.
    /// - Throws: ``TestFailure`` with everything printed since the previous match, when `text` does not
    ///   appear within `timeout` or the child closes its output first.
    @discardableResult
    func waitFor(_ text: String, within timeout: Duration = .seconds(10)) throws -> String {
        let wanted = Array(text.utf8)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let range = transcript[consumed...].firstRange(of: wanted) {
                let printed = String(decoding: transcript[consumed..<range.upperBound], as: UTF8.self)
                consumed = range.upperBound
                return printed
            }
            guard outputOpen, ContinuousClock.now < deadline else {
                let state = outputOpen ? "still running" : "output closed"
                throw TestFailure(
                    "\(text.debugDescription) did not appear within \(timeout) (\(state)); printed since the last match:\n"
                        + String(decoding: transcript[consumed...], as: UTF8.self).debugDescription)
            }
            readOutput(until: deadline)
        }
    }

    /// What the child printed after the last match so far, without waiting.
    func unmatchedOutput() -> String {
        readOutput(until: .now)
        return String(decoding: transcript[consumed...], as: UTF8.self)
    }

    /// Waits for the child to end, reading its output meanwhile.
    func waitForExit(within timeout: Duration = .seconds(10)) throws -> Ending {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let ending = try reap() { return ending }
            guard ContinuousClock.now < deadline else {
                throw TestFailure(
                    "the child did not exit within \(timeout); it printed:\n" + quotedTranscript)
            }
            // The output of a terminal stays open while this side holds the slave; check now and then.
            readOutput(until: min(deadline, .now + .milliseconds(20)))
        }
    }

    /// Waits until the child has been stopped by a signal.
    func waitForStop(within timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WUNTRACED | WNOHANG)
            guard result >= 0 else { throw TestFailure("waitpid: \(String(cString: strerror(errno)))") }
            // WIFSTOPPED is a macro: the low byte is 0x7f for a stopped child.
            if result == pid {
                guard status & 0xff == 0x7f else { throw TestFailure("the child ended instead of stopping") }
                return
            }
            guard ContinuousClock.now < deadline else { throw TestFailure("the child did not stop within \(timeout)") }
            readOutput(until: min(deadline, .now + .milliseconds(20)))
        }
    }

    /// Sends `signal` to the child.
    func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    private func reap() throws -> Ending? {
        if let ending { return ending }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 { return nil }
        guard result == pid else { throw TestFailure("waitpid: \(String(cString: strerror(errno)))") }
        // WIFEXITED and friends are macros: the low 7 bits are the signal, 0 for a normal exit.
        ending = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        readOutput(until: .now)
        return ending
    }

    /// Appends whatever the child printed to ``transcript``, waiting for something until `deadline`.
    private func readOutput(until deadline: ContinuousClock.Instant) {
        guard outputOpen else { return }
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let timeout = Int32(max(0, ((deadline - .now) / .milliseconds(1)).rounded(.up)))
        guard poll(&descriptor, 1, timeout) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count > 0 {
                transcript += buffer[..<count]
                continue
            }
            if count < 0 && errno == EINTR { continue }
            // EAGAIN: read all there was. 0 or EIO: the child closed its side.
            if count == 0 || errno != EAGAIN { outputOpen = false }
            return
        }
    }

    deinit {
        if (try? reap()) == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if input >= 0 { close(input) }
        if terminal == nil { close(output) }
    }
}
