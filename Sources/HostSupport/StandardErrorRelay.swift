import Glibc

/// A supervised host's standard error, read from a pipe and written to this process's, line by line, through
/// a ``CrashOutputFilter``: a crash in the host reaches the person as the supervisor's one line, which the
/// runtime's fatal error message is folded into, not as the runtime's stack trace (kept in ``stackTrace``).
///
/// A thread of its own relays the lines as they come. Once the host has ended, ``drain(trapped:)`` relays
/// what it wrote before (the pipe holds all of it by then), without waiting for a child of a plugin that may
/// hold the pipe open; the thread goes on relaying what such a child writes until the pipe closes. A
/// `Fatal error` line held when the pipe closes waits for the drain, which knows whether the host trapped.
///
/// The state is guarded by a ``PthreadMutex``: the relay's thread and the supervisor's reading thread contend
/// for it, and ThreadSanitizer cannot see the order a contended `Synchronization.Mutex` makes.
package final class StandardErrorRelay: Sendable {
    private struct State {
        var filter: CrashOutputFilter
        /// The bytes of a line not yet ended.
        var pending: [UInt8] = []
        var isOpen = true
        /// Whether ``drain(trapped:)`` has run: until it has, a `Fatal error` line held when the pipe closes
        /// stays held, since only the host's end says whether it is the crash's.
        var isDrained = false
    }

    /// The longest line kept whole; a longer one is written in pieces of this length.
    static let maxLineLength = 64 * 1024

    private let reader: Int32
    private let state: PthreadMutex<State>
    /// Runs the writing of lines, around which a prompt's line is taken away and drawn again.
    private let printing: @Sendable (() -> Void) -> Void

    /// Relays what is written to `reader` (a pipe's reading end, which it owns and closes); every line as it
    /// is with `passesEverything`.
    ///
    /// - Parameter printing: Runs each writing of lines: at a prompt, above the line being typed (or the line
    ///   typed last, until its command's output begins), so that the line is not left on screen twice, or
    ///   written into; by default, it just writes them.
    package init(
        reader: Int32, passesEverything: Bool, printing: @escaping @Sendable (() -> Void) -> Void = { $0() }
    ) {
        self.reader = reader
        self.printing = printing
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        state = PthreadMutex(State(filter: CrashOutputFilter(passesEverything: passesEverything)))
        BlockingThread.start { [self] in relay() }
    }

    /// The last fatal error the host's runtime reported, and its stack trace (``CrashOutputFilter``).
    package var fatalError: (error: CrashOutputFilter.FatalError, stackTrace: [String])? {
        state.withLock { state in state.filter.fatalError.map { ($0, state.filter.stackTrace) } }
    }

    /// Relays the lines the pipe holds now: called before a message of the host is acted on, so that what
    /// the host wrote to its standard error before the message is printed before what the message prints
    /// (a prompt, lines above it), as when the host wrote to the terminal itself.
    package func relayPending() {
        state.withLock { readAvailable(&$0) }
    }

    /// Relays what the ended host wrote, its last line too even without a newline.
    ///
    /// - Parameter trapped: Whether the host died of a trap, as the runtime ends a fatal error: a `Fatal error`
    ///   line it wrote last, with no stack trace after it (the runtime of code built for release prints none),
    ///   is then the crash's (``fatalError``), not printed (``CrashOutputFilter/foldHeldFatalError()``). Any
    ///   other end (a hang's kill, a signal from outside) prints it as it is.
    package func drain(trapped: Bool) {
        state.withLock { state in
            readAvailable(&state)
            if !state.pending.isEmpty {
                write(state.filter.lines(for: String(decoding: state.pending, as: UTF8.self)))
                state.pending.removeAll()
            }
            if trapped { state.filter.foldHeldFatalError() }
            write(state.filter.flush())
            state.isDrained = true
        }
    }

    private func relay() {
        while true {
            var polled = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            guard poll(&polled, 1, -1) >= 0 || errno == EINTR else { break }
            let open = state.withLock { state in
                readAvailable(&state)
                return state.isOpen
            }
            if !open { break }
        }
        state.withLock { state in
            if state.isDrained {
                // What a plugin's child that held the pipe after the host ended wrote last, without a newline.
                if !state.pending.isEmpty {
                    write(state.filter.lines(for: String(decoding: state.pending, as: UTF8.self)))
                    state.pending.removeAll()
                }
                write(state.filter.flush())
            }
            close(reader)
        }
    }

    /// Reads what the pipe holds now and writes the lines it completes; notes when it has closed.
    private func readAvailable(_ state: inout State) {
        guard state.isOpen else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = read(reader, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if count == 0 || errno != EAGAIN { state.isOpen = false }
                return
            }
            state.pending += buffer[..<count]
            while let newline = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                write(state.filter.lines(for: String(decoding: state.pending[..<newline], as: UTF8.self)))
                state.pending.removeSubrange(...newline)
            }
            if state.pending.count > Self.maxLineLength {
                write(state.filter.lines(for: String(decoding: state.pending, as: UTF8.self)))
                state.pending.removeAll()
            }
        }
    }

    private func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        printing { _ = DescriptorWriter.writeAll(bytes, to: STDERR_FILENO) }
    }
}
