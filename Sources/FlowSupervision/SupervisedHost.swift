import CProcessControl
import FlowHost
import FlowKit
import Glibc
import HostSupport
import PluginLoading
import Synchronization

/// The supervisor's handle on one host process: `flowhost run` started with `posix_spawn`, its commands
/// written to its standard input, its messages read from descriptor 3, and how it ended.
///
/// The host writes its replies straight to the supervisor's standard output, so they keep their order and
/// colours; its standard error goes through a pipe and a ``StandardErrorRelay``, which leaves out the
/// runtime's stack trace of a crash (the supervisor says it in one line); the bookkeeping goes through the
/// other pipes.
///
/// The host's end is learnt from `waitid`, not from descriptor 3 closing: a child a plugin forked may hold
/// the pipe open long after the host is gone, and a plugin may close it while the host lives on. The
/// process is reaped only once the messages it wrote before it ended have been read, and under the same
/// lock as every signal sent to it, so that a signal never reaches another process that took its pid.
final class SupervisedHost: Sendable {
    /// What the supervisor hears from the host.
    enum Event: Sendable {
        case message(SupervisorMessage)
        /// The host's first line was no ``WireProtocol/Hello`` of this protocol: why, in one line. The host
        /// is not understood; the session ends.
        case incompatible(String)
        /// Descriptor 3 reached its end while the host may still run: no process holds the pipe any more.
        case linkClosed
        /// A line on descriptor 3 that is no message (or longer than ``SupervisedHost/maxMessageLength``).
        case unreadable
        /// The host stopped with `signal` (`WUNTRACED`); it stays stopped until it gets SIGCONT.
        case stopped(Int32)
        /// The host is gone: it exited with a status, or died of a signal. The last event.
        case ended(Ending)
    }

    enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)

        /// Whether it died of the signal a trap raises, as Swift's runtime ends a fatal error: SIGILL (`ud2`
        /// on x86), SIGTRAP (`brk` on ARM).
        var isTrap: Bool { self == .signaled(SIGILL) || self == .signaled(SIGTRAP) }
    }

    /// The longest line read from descriptor 3; the rest of a longer one is dropped, as it is no message.
    static let maxMessageLength = 1 << 20

    let pid: pid_t
    /// The messages, stops and the end of the link as they come, then the ending.
    let events: AsyncStream<Event>
    private let commands: Int32
    private let inputClosed = Atomic(false)
    private let hello = HelloSeen()
    private let reaping = Reaping()
    /// What the host's descriptors 0 to 3 and 5 may be, by number, from its start: the pipes, this process's
    /// output, and for standard input also `/dev/null`, which a host reading its commands on
    /// ``SupervisorLink/commandDescriptor`` puts there.
    private let descriptors: [(number: Int32, accepted: [DescriptorIdentity])]
    private let errors: StandardErrorRelay

    /// Whether the host says where each command's output begins, and waits for the answer
    /// (``WireProtocol/Capability/commandOutput``): known from its hello, before its `ready`.
    var marksCommandOutput: Bool { hello.marksCommandOutput.load(ordering: .acquiring) }

    /// The last fatal error the host's runtime reported, and its stack trace, once it has ended.
    var fatalError: (error: CrashOutputFilter.FatalError, stackTrace: [String])? { errors.fatalError }

    /// Starts `executable arguments` with `environment`, `NAME=value` entries as bytes.
    ///
    /// - Parameters:
    ///   - lock: The supervisor's lock on its directory, which the host is given as
    ///     ``SupervisorLink/lockDescriptor`` (``AbandonedSupervisorDirectories``); -1 for none.
    ///   - trace: The run's trace, which the host is given as ``SharedTrace/descriptor``; -1 for none.
    ///   - onLines: Receives ``SupervisorMessage/lines(_:)`` as they arrive, on the reading thread, rather
    ///     than in ``events``: a prompt prints them above the line being typed at once.
    ///   - passesErrorsWhole: Whether the host's standard error passes whole, the runtime's reports of a
    ///     crash included (``CrashOutputFilter``).
    /// - Throws: ``FlowError`` when the pipes or the process cannot be made.
    init(
        executable: String, arguments: [String], environment: [[UInt8]], lock: Int32 = -1, trace: Int32 = -1,
        onLines: (@Sendable ([String]) -> Void)?, passesErrorsWhole: Bool = false,
        printingErrors: @escaping @Sendable (() -> Void) -> Void = { $0() }
    ) throws(FlowError) {
        // Closed on exec from the start (``PipeDescriptors``): only the ends duplicated onto the host's
        // descriptors below reach it, and nothing else started meanwhile gets any.
        var made: [Int32] = []
        func pipe() throws(FlowError) -> [Int32] {
            guard let ends = PipeDescriptors.make() else {
                let error = Self.failure("cannot make a pipe")
                for end in made { close(end) }
                throw error
            }
            made += [ends.read, ends.write]
            return [ends.read, ends.write]
        }
        var input = try pipe()
        var control = try pipe()
        var wake = try pipe()
        var errorOutput = try pipe()
        // Above the descriptors the host is given: `dup2` onto a descriptor it already is would keep
        // FD_CLOEXEC, and the host would start without it.
        for index in 0..<2 {
            input[index] = Self.aboveStandard(input[index])
            control[index] = Self.aboveStandard(control[index])
            wake[index] = Self.aboveStandard(wake[index])
            errorOutput[index] = Self.aboveStandard(errorOutput[index])
        }
        var launch = ProcessLaunch(
            executable: executable, arguments: arguments, environmentBytes: environment,
            actions: [
                // Both: a host of an earlier build reads standard input (WireProtocol.Capability.commandDescriptor).
                .duplicate(input[0], onto: STDIN_FILENO),
                .duplicate(input[0], onto: SupervisorLink.commandDescriptor),
                .duplicate(errorOutput[1], onto: STDERR_FILENO),
                .duplicate(control[1], onto: SupervisorLink.controlDescriptor),
            ] + (lock >= 0 ? [.duplicate(lock, onto: SupervisorLink.lockDescriptor)] : [])
                + (trace >= 0 ? [.duplicate(trace, onto: SharedTrace.descriptor)] : []))
        // The supervisor ignores SIGPIPE (a host may die mid-write); the host gets the usual action back.
        launch.defaultSignals = [SIGPIPE]
        let started = Result { () throws(ProcessLaunch.Failure) in try launch.start() }
        let errorIdentity = DescriptorIdentity(descriptor: errorOutput[1])
        close(input[0])
        close(control[1])
        close(errorOutput[1])
        let pid: pid_t
        switch started {
        case .success(let started): pid = started
        case .failure(let error):
            for end in [input[1], control[0], wake[0], wake[1], errorOutput[0]] { close(end) }
            throw FlowError("cannot start \(executable): \(error)")
        }
        self.pid = pid
        commands = input[1]
        let commandPipe = DescriptorIdentity(descriptor: input[1])
        let nothing = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let devNull = DescriptorIdentity(descriptor: nothing)
        if nothing >= 0 { close(nothing) }
        let given: [(Int32, [DescriptorIdentity?])] = [
            (STDIN_FILENO, [commandPipe, devNull]),
            (STDOUT_FILENO, [DescriptorIdentity(descriptor: STDOUT_FILENO)]),
            (STDERR_FILENO, [errorIdentity]),
            (SupervisorLink.controlDescriptor, [DescriptorIdentity(descriptor: control[0])]),
            (SupervisorLink.commandDescriptor, [commandPipe]),
        ]
        descriptors = given.map { ($0.0, $0.1.compactMap { $0 }) }.filter { !$0.accepted.isEmpty }
        let errors = StandardErrorRelay(
            reader: errorOutput[0], passesEverything: passesErrorsWhole, printing: printingErrors)
        self.errors = errors
        let (events, continuation) = AsyncStream<Event>.makeStream()
        self.events = events
        let (reader, child, reaping, wakeReader, wakeWriter) = (control[0], pid, reaping, wake[0], wake[1])
        let seen = hello
        BlockingThread.start {
            reaping.waitForEnd(of: child, stopped: { continuation.yield(.stopped($0)) })
            close(wakeWriter)  // Tells the reader to read what is left, then report the ending.
        }
        BlockingThread.start {
            var greeting: Bool?  // Whether the host's hello was understood, once it came.
            Self.readMessages(from: reader, until: wakeReader) { line in
                errors.relayPending()  // What the host wrote to standard error before the message, first.
                guard greeting == true else {
                    // The first line, sent before any plugin code runs: nothing else can have written it.
                    guard greeting == nil else { return }  // Nothing a host not understood says is read.
                    let hello = WireProtocol.message(WireProtocol.Hello.self, in: line)
                    let problem = Self.problem(with: hello)
                    greeting = problem == nil
                    if let problem { continuation.yield(.incompatible(problem)) }
                    let capability = WireProtocol.Capability.commandOutput.rawValue
                    seen.marksCommandOutput.store(
                        hello?.capabilities.contains(capability) == true, ordering: .releasing)
                    return
                }
                guard let message = WireProtocol.message(SupervisorMessage.self, in: line), message.isWellFormed
                else {
                    continuation.yield(.unreadable)
                    return
                }
                if case .lines(let lines) = message, let onLines {
                    onLines(lines)
                } else {
                    continuation.yield(.message(message))
                }
            } linkClosed: {
                continuation.yield(.linkClosed)
            }
            close(reader)
            close(wakeReader)
            let ending = reaping.ending ?? .exited(ExitCode.software.rawValue)
            // Before the ending, so that its fatal error is known to whoever hears of it.
            errors.drain(trapped: ending.isTrap)
            continuation.yield(.ended(ending))
            continuation.finish()
        }
    }

    deinit { closeInput() }

    /// Nil when `hello`, read from the host's first line, is one this supervisor understands; otherwise why not.
    private static func problem(with hello: WireProtocol.Hello?) -> String? {
        guard let hello else {
            return "the host did not say which wire protocol it speaks (an older or another flowhost?)"
        }
        return WireProtocol.mismatch(with: hello, needs: .supervisedHost)
    }

    /// Sends the command on line `number` of the script (or the count of lines typed), with the token its
    /// ``SupervisorMessage/done(_:token:)`` must carry.
    package func send(_ command: String, number: Int, token: String) {
        // A failure means the host is gone; its ending is on its way.
        DescriptorWriter.writeAll(Array("\(number)\t\(token)\t\(command)\n".utf8), to: commands)
    }

    /// Answers the host's ``SupervisorMessage/output(token:)`` for the command sent with `token`: the lines it
    /// sent before are drawn, and it may print the command's output.
    func answerOutput(token: String) {
        DescriptorWriter.writeAll(Array("\(token)\n".utf8), to: commands)
    }

    /// Ends the host's input: it stops its services and exits.
    func closeInput() {
        if !inputClosed.exchange(true, ordering: .relaxed) { close(commands) }
    }

    /// Sends `signal` to the host, unless it has been reaped; to its main thread only when `mainThread`
    /// (`tgkill`), so that a handler records that thread's frames.
    func signal(_ signal: Int32, mainThread: Bool = false) {
        reaping.whileRunning {
            if mainThread {
                _ = flowhost_tgkill(pid, pid, signal)
            } else {
                _ = kill(pid, signal)
            }
        }
    }

    /// The first of the host's descriptors 0 to 3 and 5 that is no longer what it was given (a plugin closed
    /// or replaced it); `nil` when all are, or when they cannot be seen (no `/proc`, the host has ended, or it
    /// is not dumpable: a hang of such a host is a hang, not a descriptor lost).
    func changedDescriptor() -> Int32? {
        reaping.whileRunning { () -> Int32? in
            guard Self.isRunning(pid) else { return nil }
            for (number, accepted) in descriptors {
                switch DescriptorIdentity.seen(Int(number), of: pid) {
                case .open(let identity) where accepted.contains(identity): continue
                case .hidden: continue
                case .ended: return nil  // it ended since isRunning: its end closed them, not plugin code
                case .open, .closed: return number
                }
            }
            return nil
        } ?? nil
    }

    /// Whether the host waits for a plugin's probe: a child process `flowhost __probe`, which has its own
    /// timeout (`--probe-timeout`), so that the host is slow, not hung.
    func isProbing() -> Bool {
        reaping.whileRunning { () -> Bool in
            // Each thread's children: a probe is started by whichever thread loads the plugin.
            ProcFile.children(of: pid).contains { child in
                let arguments = ProcFile.contents(of: "/proc/\(child)/cmdline").split(separator: 0)
                return arguments.count > 1 && arguments[1].elementsEqual(PluginProbe.subcommand.utf8)
            }
        } ?? false
    }

    /// Whether `pid` runs (or is stopped): it has not ended, as far as `/proc/PID/stat` tells.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let state = ProcFile.state(inStat: ProcFile.contents(of: "/proc/\(pid)/stat")) else { return false }
        return ![UInt8(ascii: "Z"), UInt8(ascii: "X")].contains(state)
    }

    /// What the host's hello said it can do, as the reading thread found it.
    private final class HelloSeen: Sendable {
        let marksCommandOutput = Atomic(false)
    }

    /// The host's end: waited for on a thread of its own, and reaped under the lock that every signal sent to
    /// it takes, so that a signal never reaches another process that has taken its pid since.
    ///
    /// The lock is a ``PthreadMutex``: the waiting thread and a signal's sender contend for it, and ThreadSanitizer
    /// took a `Synchronization.Mutex` contended so for a race (CI, under `--sanitize=thread`).
    private final class Reaping: Sendable {
        private let state = PthreadMutex<(reaped: Bool, ending: Ending?)>((false, nil))

        /// How the host ended, once it is reaped.
        var ending: Ending? { state.withLock { $0.ending } }

        /// `body`'s result while the host has not been reaped; `nil` after.
        func whileRunning<T>(_ body: () -> T) -> T? {
            state.withLock { state in state.reaped ? nil : body() }
        }

        /// Waits for `pid` to end, reporting each stop on the way; reaps it.
        func waitForEnd(of pid: pid_t, stopped: (Int32) -> Void) {
            while true {
                var info = siginfo_t()
                // WNOWAIT: an ending is only looked at here; it is reaped below, under the lock.
                guard waitid(P_PID, id_t(pid), &info, WEXITED | WSTOPPED | WNOWAIT) == 0 else {
                    if errno == EINTR { continue }
                    state.withLock { $0 = (true, .exited(ExitCode.software.rawValue)) }
                    return
                }
                var status: Int32 = 0
                if info.si_code == Int32(CLD_STOPPED) {
                    // Consumes the stop; the host may have gone on since, or ended.
                    if waitpid(pid, &status, WNOHANG | WUNTRACED) == pid, status & 0xFF == 0x7F {
                        stopped((status >> 8) & 0xFF)
                    }
                    continue
                }
                state.withLock { state in
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    let ending: Ending =
                        status & 0x7F != 0 ? .signaled(status & 0x7F) : .exited((status >> 8) & 0xFF)
                    state = (true, ending)
                }
                return
            }
        }
    }

    /// `descriptor`, a pipe's end closed on exec, moved to 10 or above, still closed on exec (kept where it is
    /// if it cannot be moved).
    private static func aboveStandard(_ descriptor: Int32) -> Int32 {
        let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 10)
        guard moved >= 0 else { return descriptor }
        close(descriptor)
        return moved
    }

    private static func failure(_ what: String) -> FlowError {
        FlowError("\(what) for the supervised host: \(String(cString: strerror(errno)))")
    }
}

extension SupervisorMessage {
    /// Whether the values are ones a host sends: a lost descriptor is one of the standard three, the
    /// commands' or the trace's.
    fileprivate var isWellFormed: Bool {
        if case .lost(let descriptor, _) = self {
            (0...2).contains(descriptor) || descriptor == SupervisorLink.commandDescriptor
                || descriptor == SharedTrace.descriptor
        } else {
            true
        }
    }
}
