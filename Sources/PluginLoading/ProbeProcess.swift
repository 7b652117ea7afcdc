import CProcessControl
import FlowKit
import Glibc
import HostSupport

/// One probe: `flowhost __probe PATH` started with `posix_spawn`, its answer read from descriptor 3, and
/// how it ended. The child's standard streams go to `/dev/null`, so that nothing a plugin prints reaches
/// the host's output.
///
/// The child is the leader of a process group of its own. A process the plugin starts while it is loaded (a
/// constructor that forks a helper) is in that group, holding descriptor 3 open: the probe's end is learnt
/// from the child itself, not from the pipe closing, and the group is killed once the probe is over, so that
/// looking at a plugin leaves nothing of it running.
struct ProbeProcess {
    /// How a probe ended.
    enum Outcome: Sendable, Equatable {
        /// The child wrote an answer and exited normally.
        case answered(WireProtocol.ProbeAnswer)
        /// The child speaks another wire protocol: why, in one line.
        case incompatible(String)
        /// The child died of signal `signal`.
        case crashed(signal: Int32)
        /// The child exited with `status` without a complete answer.
        case exited(status: Int32)
        /// The child did not finish within the timeout and was killed.
        case timedOut
        /// The child was stopped (a constructor's `raise(SIGSTOP)`), continued once with SIGCONT, and stopped
        /// again, by `signal`; it was killed at once, without waiting for the timeout.
        case stopped(signal: Int32)
    }

    /// The descriptor the child writes its answer to.
    static let answerDescriptor: Int32 = 3

    /// The status a child exits with when it cannot write its answer, the library's code having closed or
    /// replaced ``answerDescriptor``: not 70 (`EX_SOFTWARE`) nor another of the statuses a constructor's
    /// `exit` usually gives, so that the two are told apart.
    static let unanswerableStatus: Int32 = 86

    /// The child's environment variable giving this process's ID: out of reach of a terminal's Ctrl-C in its
    /// own process group, the child has the kernel kill it when this process ends (`PR_SET_PDEATHSIG`), so a
    /// probe the host no longer waits for (the host interrupted, or killed) ends with it.
    static let parentVariable = "FLOWHOST_PROBE_PARENT"

    /// Runs `executable __probe path` (with `--allow-insecure-plugins` when `allowInsecure`, and the pin
    /// `sha256`, which the child checks on the bytes it loads) and waits at most `timeout` seconds for it.
    ///
    /// - Throws: ``PluginLoadError/Kind/probeFailed`` when no child could be started.
    package static func run(
        executable: String, path: String, sha256: String? = nil, allowInsecure: Bool = false, timeout: Double
    ) throws(PluginLoadError) -> Outcome {
        if let trace = ProcessInfoLite.environment("FLOWHOST_PROBE_TRACE") { append("probe \(path)\n", to: trace) }
        // Closed on exec from the start: a process started meanwhile from another thread (another probe, a
        // plugin's own) would hold the writing end, and the probe could not learn its end from the pipe.
        guard let (reader, writer) = PipeDescriptors.make() else {
            throw failure(path, "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        // No crash report: the runtime's backtracer would take seconds to describe a crash nobody reads. The
        // protocol is this process's, whatever this process was given.
        let set = [
            "SWIFT_BACKTRACE": "enable=no", WireProtocol.environmentVariable: WireProtocol.Hello.ours,
            parentVariable: String(getpid()),
        ]
        // LD_LIBRARY_PATH exactly once, with the bytes this process judged (``PluginDependencies/LibraryPath``),
        // so the probe's loader and its check read one and the same; the rest as it is, not UTF-8 repaired.
        let library = PluginDependencies.LibraryPath.name
        let judged = PluginDependencies.LibraryPath.atStartBytes.map { [Array("\(library)=".utf8) + $0] }
        let replaced = (Array(set.keys) + [library]).map { Array("\($0)=".utf8) }
        let environment =
            ProcessInfoLite.environmentEntryBytes().filter { entry in !replaced.contains { entry.starts(with: $0) } }
            + set.map { "\($0.key)=\($0.value)" }.sorted().map { Array($0.utf8) } + (judged ?? [])
        var launch = ProcessLaunch(
            executable: executable,
            arguments: [PluginProbe.subcommand]
                + PluginProbe.Request(path: path, allowInsecure: allowInsecure, sha256: sha256).arguments,
            environmentBytes: environment,
            actions: [
                .open(STDIN_FILENO, path: "/dev/null", flags: O_RDONLY),
                .open(STDOUT_FILENO, path: "/dev/null", flags: O_WRONLY),
                .open(STDERR_FILENO, path: "/dev/null", flags: O_WRONLY),
                .duplicate(writer, onto: answerDescriptor),
            ])
        launch.newProcessGroup = true
        // A plugin's SIGCHLD handler that reaps every child (`waitpid(-1, ...)`, as a library that starts
        // helpers may install) would take the probe's end first, and a good plugin probed after it would be
        // refused as `lost the probe process`: it is out of the way until the probe is reaped.
        flowhost_hold_child_signal()
        defer { flowhost_release_child_signal() }
        let pid: pid_t
        do {
            pid = try launch.start()
        } catch {
            for end in [reader, writer] { close(end) }
            throw failure(path, "cannot start \(executable): \(error)")
        }
        close(writer)
        defer { close(reader) }

        let deadline = now() + timeout
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // The answer is complete once the child has exited: its end of the pipe closes then, unless a process
        // it started holds it, so the child is looked at whenever the pipe is quiet for a moment.
        var exited = false
        // Set when the pipe cannot be read (other code in the host closed or replaced its descriptor): what the
        // child said is lost, which says nothing of the library, so nothing is laid at it.
        var unreadable: Int32?
        // A stopped child is quiet too: it is continued once (a stop may be someone's `kill -STOP`), as the
        // supervisor continues its host, and a second stop ends the probe at once rather than at the timeout.
        var continued = false
        func stoppedAgain() -> Int32? {
            guard let signal = takeStop(pid) else { return nil }
            if continued { return signal }
            continued = true
            _ = Glibc.kill(pid, SIGCONT)
            return nil
        }
        while !exited {
            let left = deadline - now()
            guard left > 0 else { return kill(pid) }
            var polled = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            let ready = poll(&polled, 1, Int32(min(left * 1000, 20).rounded(.up)))
            if ready < 0 && errno != EINTR {
                unreadable = errno
                break
            }
            guard ready > 0 else {
                exited = hasExited(pid)
                if !exited, let signal = stoppedAgain() { return kill(pid, stoppedBy: signal) }
                continue
            }
            let count = read(reader, &buffer, buffer.count)
            if count > 0 {
                answer += buffer[..<count]
                // An answer is a few kilobytes; a child that writes without end is not a probe.
                if answer.count > 16 << 20 { return kill(pid) }
            } else if count == 0 {
                break
            } else if errno != EINTR {
                unreadable = errno
                break
            }
        }
        if let unreadable {
            _ = reap(pid)
            throw failure(path, "cannot read its probe's answer: \(String(cString: strerror(unreadable)))")
        }
        if exited { readWaiting(reader, into: &answer) }
        while !hasExited(pid) {
            guard now() < deadline else { return kill(pid) }
            if let signal = stoppedAgain() { return kill(pid, stoppedBy: signal) }
            var none = pollfd(fd: -1, events: 0, revents: 0)
            _ = poll(&none, 0, 5)
        }
        guard let status = reap(pid) else {
            throw failure(path, "lost the probe process: other code in the host (a plugin's) waited for it")
        }
        if status & 0x7F != 0 { return .crashed(signal: status & 0x7F) }
        let exitStatus = (status >> 8) & 0xFF
        // Its hello comes first, before the library is loaded; then the answer, if loading it returned.
        let lines = String(decoding: answer, as: UTF8.self).split(separator: "\n").map(String.init)
        // Its hello goes before any of the library's code runs: a child that said nothing at all never got that
        // far (the executable is no flowhost that probes, or it failed as it started), whatever the library is.
        guard let first = lines.first else {
            return .incompatible("the probe process said nothing and exited with status \(exitStatus)")
        }
        guard let hello = WireProtocol.message(WireProtocol.Hello.self, in: first) else {
            return .incompatible("the probe did not say which wire protocol it speaks (an older or another flowhost?)")
        }
        if let mismatch = WireProtocol.mismatch(with: hello, needs: .probe) { return .incompatible(mismatch) }
        guard exitStatus == 0, lines.count == 2,
            let parsed = WireProtocol.message(WireProtocol.ProbeAnswer.self, in: lines[1])
        else { return .exited(status: exitStatus) }
        return .answered(parsed)
    }

    /// Kills a child that ran out of time, or that stopped a second time (`stoppedBy`), and its group, and reaps it.
    private static func kill(_ pid: pid_t, stoppedBy signal: Int32? = nil) -> Outcome {
        _ = Glibc.kill(pid, SIGKILL)
        _ = reap(pid)
        return signal.map { .stopped(signal: $0) } ?? .timedOut
    }

    /// The signal that stopped the child since this was last asked (`waitid` with `WSTOPPED`, which takes the
    /// stop's report: a later stop is reported anew), or `nil` when it has not stopped.
    private static func takeStop(_ pid: pid_t) -> Int32? {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOHANG) != 0 {
            if errno != EINTR { return nil }
        }
        guard info.si_code == CLD_STOPPED else { return nil }
        return info._sifields._sigchld.si_status
    }

    /// Whether the child has ended (or can no longer be waited for), leaving it to be reaped.
    private static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 {
            if errno != EINTR { return true }
        }
        // With WNOHANG and no ending yet, nothing is filled in.
        return info.si_code != 0
    }

    /// Appends what is waiting in the pipe to `answer`: once the child has exited, what it wrote is there, and
    /// a process it started that holds the pipe is no probe's to hear.
    private static func readWaiting(_ reader: Int32, into answer: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while answer.count <= 16 << 20 {
            var polled = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            guard poll(&polled, 1, 0) > 0 else { return }
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else { return }
            answer += buffer[..<count]
        }
    }

    /// Kills what is left of the child's process group, then reaps the child; its wait status, or `nil` when
    /// it cannot be waited for.
    ///
    /// The group is killed while the child is unreaped: its process ID, the group's, cannot be anyone else's
    /// before that.
    private static func reap(_ pid: pid_t) -> Int32? {
        _ = Glibc.kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        return status
    }

    private static func failure(_ path: String, _ reason: String) -> PluginLoadError {
        PluginLoadError(file: path, kind: .probeFailed, message: "cannot probe it: \(reason)")
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Appends `line` to `file` (`FLOWHOST_PROBE_TRACE`, for tests), unless it is a link or another user's.
    private static func append(_ line: String, to file: String) {
        let fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var status = stat()
        // In a shared directory, another user could have made the file first to learn what is probed.
        guard fstat(fd, &status) == 0, status.st_uid == geteuid() else { return }
        _ = Array(line.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
