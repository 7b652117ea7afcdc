import Glibc
import HostSupport

extension SupervisedHost {
    /// What one look at the host's threads tells of a wait for the reader of its output.
    enum OutputWaitLook: Equatable {
        /// A thread is in a `write` to standard output or error, and none runs.
        case waiting
        /// No thread runs, and none writes to the output: the host waits for something else.
        case notWaiting
        /// A thread runs (state `R`, which a thread woken for a moment has too while it waits its turn on a
        /// loaded machine): the look tells nothing yet.
        case running
        /// No thread's system call can be seen (a host that is not dumpable, a kernel that hides them).
        case unseen
    }

    /// How many looks ``waitsForOutputReader()`` takes at most, and the pause between two.
    static let outputWaitLooks = 5
    static let outputWaitPause: Duration = .milliseconds(20)

    /// Whether the host waits for the reader of its output: one of its threads (the one printing a command's
    /// reply, which need not be the main thread) is in a `write` to standard output or error
    /// (`/proc/PID/task/TID/syscall`), a pipe or a terminal that is full (a pager left on one screen, a reader that
    /// has not started, Ctrl-S), and none runs. That is no hang of the host's; a host with a thread that spins
    /// (the command's, or a plugin's) while output waits is hung all the same.
    ///
    /// A thread seen running in one look may only have woken for a moment (a timer), and on a loaded machine
    /// it waits for a processor in state `R` longer: so the host is looked at again, a few times a short while
    /// apart (``outputWaitLooks``), and waits for its reader when one look finds no thread running and one
    /// writing its output; a thread that runs at every look spins (``waits(looks:)``). When no thread's system
    /// call can be seen, whether standard output, which the host shares with the supervisor, or the
    /// supervisor's standard error, to which it relays the host's, takes nothing more.
    func waitsForOutputReader() -> Bool {
        var taken = 0
        let looks = AnyIterator { () -> OutputWaitLook? in
            guard taken < Self.outputWaitLooks else { return nil }
            if taken > 0 { Self.pause(Self.outputWaitPause) }
            taken += 1
            return self.lookForOutputWait()
        }
        if let waits = Self.waits(looks: looks) { return waits }
        var outputs = [STDOUT_FILENO, STDERR_FILENO].map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
        guard poll(&outputs, nfds_t(outputs.count), 0) >= 0 else { return false }
        // Neither writable nor in error (a reader gone makes writes fail at once, which blocks nothing).
        return outputs.contains { $0.revents == 0 }
    }

    /// What `looks` say, taken until one tells: the first look that finds no thread running says whether the
    /// host waits for its output's reader; threads running at every look spin, and the host does not wait;
    /// `nil` when no look could see the threads' calls.
    static func waits(looks: some Sequence<OutputWaitLook>) -> Bool? {
        var seen = false
        for look in looks {
            switch look {
            case .waiting: return true
            case .notWaiting: return false
            case .running: seen = true
            case .unseen: continue
            }
        }
        return seen ? false : nil
    }

    /// One look at the host's threads (``OutputWaitLook``).
    private func lookForOutputWait() -> OutputWaitLook {
        var seen = false
        var writing = false
        for thread in ProcFile.threads(of: pid) {
            let task = "/proc/\(pid)/task/\(thread)"
            if ProcFile.state(inStat: ProcFile.contents(of: task + "/stat")) == UInt8(ascii: "R") { return .running }
            let call = String(decoding: ProcFile.contents(of: task + "/syscall"), as: UTF8.self)
            guard let writes = Self.isWritingOutput(syscall: call) else { continue }
            seen = true
            writing = writing || writes
        }
        guard seen else { return .unseen }
        return writing ? .waiting : .notWaiting
    }

    private static func pause(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// Whether `/proc/PID/syscall`'s line says the thread is in `write` or `writev` to descriptor 1 or 2;
    /// `nil` when the line says nothing (empty: unreadable).
    static func isWritingOutput(syscall line: String) -> Bool? {
        let fields = line.split(whereSeparator: \.isWhitespace)
        guard let first = fields.first else { return nil }
        // `running`, or `-1 SP PC` for a thread stopped outside a system call: in no write.
        guard let number = Int(first), number >= 0, fields.count > 1 else { return false }
        #if arch(x86_64)
            let writes = [1, 20]  // write, writev
        #elseif arch(arm64)
            let writes = [64, 66]
        #else
            return nil  // The numbers of this architecture's calls are not known here: the outputs tell.
        #endif
        let descriptor = fields[1].hasPrefix("0x") ? Int(fields[1].dropFirst(2), radix: 16) : nil
        return writes.contains(number) && (descriptor == 1 || descriptor == 2)
    }
}
