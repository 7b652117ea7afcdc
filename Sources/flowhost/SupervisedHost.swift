import Dispatch
import FlowHost
import FlowKit
import Glibc
import Synchronization

/// The supervisor's handle on one host process: `flowhost run` started with `posix_spawn`, its commands
/// written to its standard input, its messages read from descriptor 3, and how it ended.
///
/// The host writes its replies straight to the supervisor's standard output and error, so they keep their
/// order and colours; only the bookkeeping goes through the pipes.
final class SupervisedHost: Sendable {
    /// What the supervisor hears from the host.
    enum Event: Sendable {
        case message(SupervisorMessage)
        /// The host is gone: it exited with a status, or died of a signal.
        case ended(Ending)
    }

    enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    let pid: pid_t
    /// The messages, then the ending, in order.
    let events: AsyncStream<Event>
    private let commands: Int32
    private let inputClosed = Atomic(false)

    /// Starts `executable arguments` with `environment`.
    ///
    /// - Parameter onLines: Receives ``SupervisorMessage/lines(_:)`` as they arrive, on the reading thread,
    ///   rather than in ``events``: a prompt prints them above the line being typed at once.
    /// - Throws: ``FlowError`` when the pipes or the process cannot be made.
    init(
        executable: String, arguments: [String], environment: [String],
        onLines: (@Sendable ([String]) -> Void)?
    ) throws(FlowError) {
        var input: [Int32] = [0, 0]
        var control: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw Self.failure("cannot make a pipe") }
        guard pipe(&control) == 0 else {
            for end in input { close(end) }
            throw Self.failure("cannot make a pipe")
        }
        for end in input + control { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, control[1], SupervisorLink.controlDescriptor)
        // The supervisor ignores SIGPIPE (a host may die mid-write); the host gets the usual action back.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(input[0])
        close(control[1])
        guard spawned == 0 else {
            close(input[1])
            close(control[0])
            throw FlowError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        commands = input[1]
        let (events, continuation) = AsyncStream<Event>.makeStream()
        self.events = events
        let (reader, child) = (control[0], pid)
        DispatchQueue.global().async {
            for line in Self.lines(of: reader) {
                guard let message = SupervisorMessage(line: line) else { continue }
                if case .lines(let lines) = message, let onLines {
                    onLines(lines)
                } else {
                    continuation.yield(.message(message))
                }
            }
            close(reader)
            continuation.yield(.ended(Self.wait(for: child)))
            continuation.finish()
        }
    }

    deinit { closeInput() }

    /// Sends the command on line `number` of the script (or the count of lines typed).
    func send(_ command: String, number: Int) {
        // A failure means the host is gone; its ending is on its way.
        DescriptorWriter.writeAll(Array("\(number)\t\(command)\n".utf8), to: commands)
    }

    /// Ends the host's input: it stops its services and exits.
    func closeInput() {
        if !inputClosed.exchange(true, ordering: .relaxed) { close(commands) }
    }

    /// The lines of descriptor `reader` until it ends, read as they arrive.
    private static func lines(of reader: Int32) -> some Sequence<String> {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var done = false
        return AnyIterator<String> {
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    defer { pending.removeSubrange(...newline) }
                    return String(decoding: pending[..<newline], as: UTF8.self)
                }
                guard !done else { return nil }
                let count = read(reader, &buffer, buffer.count)
                if count > 0 {
                    pending += buffer[..<count]
                } else if count == 0 || errno != EINTR {
                    done = true
                }
            }
        }
    }

    /// Reaps `pid`: how it ended.
    private static func wait(for pid: pid_t) -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(ExitCode.software.rawValue) }
        }
        return status & 0x7F != 0 ? .signaled(status & 0x7F) : .exited((status >> 8) & 0xFF)
    }

    private static func failure(_ what: String) -> FlowError {
        FlowError("\(what) for the supervised host: \(String(cString: strerror(errno)))")
    }
}
