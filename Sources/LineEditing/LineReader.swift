import Glibc
import HostSupport

/// The lines of a descriptor (standard input, a pipe), read as they are asked for.
///
/// Nothing is read ahead of the line asked for beyond one buffer (``bufferSize`` bytes): a fast writer
/// fills the pipe and then waits for the reader, so memory stays flat however much is written. A line
/// longer than ``maxLineLength`` bytes is refused rather than gathered.
package final class LineReader: Sendable {
    /// Why no more lines can be read.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Line `line` (from 1) has more than `limit` bytes.
        case tooLong(line: Int, limit: Int)
        /// `read` failed on line `line` with `errno` value `code`.
        case unreadable(line: Int, code: Int32)
        /// Line `line` is not UTF-8 text: its byte at `column` (counted in Unicode scalars, from 1) is not.
        case notUTF8(line: Int, column: Int)
        /// Line `line` holds a NUL byte at `column`, which no command holds: a path with one names another
        /// file to the C library (`save a\0b.json` would write `a`).
        case nul(line: Int, column: Int)

        /// `line 3 is longer than ...`, for a message that starts with the source's name and a colon.
        package var description: String {
            switch self {
            case .tooLong(let line, let limit):
                "line \(line) is longer than \(limit) bytes, the limit for a command line"
            case .unreadable(let line, let code):
                "cannot read line \(line): \(String(cString: strerror(code)))"
            case .notUTF8(let line, let column):
                "line \(line) is not UTF-8 text: an invalid byte at column \(column)"
            case .nul(let line, let column):
                "line \(line) has a NUL byte at column \(column), which no command holds"
            }
        }
    }

    /// The longest line read by default, without its newline: 1 MiB.
    package static let defaultMaxLineLength = 1 << 20

    private struct State {
        var pending: [UInt8] = []
        /// What one `read` fills, made once: growing `pending` by a buffer of zeros for each read cost 10 ms in
        /// a debug build, for every command a supervisor sent.
        var scratch: [UInt8]
        /// Where the next line starts in `pending`.
        var start = 0
        var ended = false
        package var failure: Failure?
        var lineNumber = 0
    }

    private let descriptor: Int32
    /// The longest line, in bytes, without its newline.
    package let maxLineLength: Int
    /// The most bytes one `read` asks for: the bound on what is read beyond the line returned.
    package let bufferSize: Int
    private let state: PthreadMutex<State>

    /// Lines of `descriptor`, which stays open (the caller closes it).
    package init(descriptor: Int32, maxLineLength: Int = defaultMaxLineLength, bufferSize: Int = 64 * 1024) {
        self.descriptor = descriptor
        self.maxLineLength = max(1, maxLineLength)
        self.bufferSize = max(1, bufferSize)
        state = PthreadMutex(State(scratch: [UInt8](repeating: 0, count: self.bufferSize)))
    }

    /// The next line without its newline (nor a `\r` before it), blocking until it is complete; `nil` at
    /// the end of the input. A last line without a newline is a line.
    ///
    /// - Throws: ``Failure`` for a line that is too long or a failed read; every later call throws it again.
    package func next() throws(Failure) -> String? {
        try state.withLock { state in Result { () throws(Failure) in try nextLine(&state) } }.get()
    }

    private func nextLine(_ state: inout State) throws(Failure) -> String? {
        if let failure = state.failure { throw failure }
        var searched = state.start
        while true {
            let newline = state.pending[searched...].firstIndex(of: UInt8(ascii: "\n"))
            if (newline ?? state.pending.count) - state.start > maxLineLength {
                state.pending = []
                try fail(&state, .tooLong(line: state.lineNumber + 1, limit: maxLineLength))
            }
            if let newline { return try take(&state, upTo: newline, skipping: 1) }
            searched = state.pending.count
            if state.ended {
                guard state.start < state.pending.count else { return nil }
                return try take(&state, upTo: state.pending.count, skipping: 0)
            }
            // What was taken goes before more is read, so the buffer holds one line and one read at most.
            if state.start > 0 {
                state.pending.removeSubrange(..<state.start)
                searched -= state.start
                state.start = 0
            }
            let got = state.scratch.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            let code = errno
            if got > 0 { state.pending.append(contentsOf: state.scratch[..<got]) }
            if got == 0 {
                state.ended = true
            } else if got < 0 && code == EAGAIN {
                // A descriptor left non-blocking by whoever shared it: wait until it has something.
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&ready, 1, -1)
            } else if got < 0 && code != EINTR {
                try fail(&state, .unreadable(line: state.lineNumber + 1, code: code))
            }
        }
    }

    private func fail(_ state: inout State, _ failure: Failure) throws(Failure) -> Never {
        state.failure = failure
        throw failure
    }

    /// The line up to `end`, taken off the input; a line that is not text (not UTF-8, or with a NUL byte)
    /// ends the input, as a line too long does: decoded with U+FFFD for each bad byte, or cut at the NUL by
    /// the C library, a path in it would name another file than the one given.
    private func take(_ state: inout State, upTo end: Int, skipping separator: Int) throws(Failure) -> String {
        var last = end
        if last > state.start, state.pending[last - 1] == UInt8(ascii: "\r") { last -= 1 }
        var bytes = state.pending[state.start..<last]
        state.lineNumber += 1
        // A byte order mark that an editor put first is no part of the first command, as in a script.
        if state.lineNumber == 1, bytes.starts(with: InputFile.byteOrderMark) { bytes = bytes.dropFirst(3) }
        guard let line = String(validating: bytes, as: UTF8.self) else {
            let column = InputFile.firstInvalidUTF8(in: Array(bytes))?.column ?? 1
            try fail(&state, .notUTF8(line: state.lineNumber, column: column))
        }
        if let (_, column) = InputFile.firstNUL(in: bytes) {
            try fail(&state, .nul(line: state.lineNumber, column: column))
        }
        state.start = end + separator
        if state.start == state.pending.count {
            state.pending.removeAll(keepingCapacity: true)
            state.start = 0
        }
        return line
    }
}
