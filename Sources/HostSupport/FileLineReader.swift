import Glibc

/// Reads a file line by line through a buffer of fixed size, so that a file of any size is read in the same
/// memory: the buffer, and the longest line, which has a limit: a file without a newline would otherwise be
/// read into memory whole, however large (a sparse file costs its writer nothing).
///
/// Lines end at `\n`, which is not part of them; a last line without one is a line too. Nothing is decoded:
/// the caller checks that a line is text.
///
/// The file is read as long as it was when it was opened: what is appended later (a run still writing its
/// trace) is not, so that reading a file that grows faster than it is read ends.
package final class FileLineReader {
    /// The number of the line ``next()`` returned last, from 1.
    package private(set) var lineNumber = 0
    /// Whether the line ``next()`` returned last is the file's last and ends without a `\n`, as a file cut
    /// short (copied or written only in part) ends.
    package private(set) var endsWithoutNewline = false

    private let descriptor: Int32
    private let what: String
    private let maxLineLength: Int
    /// Bytes read and not yet returned: `buffer[start...]`.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next `\n` resumes: the bytes from `start` to it hold none.
    private var scanned = 0
    private var atEnd = false
    /// How many of the bytes the file had when it was opened are still to be read.
    private var unread: Int
    /// What one `read` fills (`chunkSize` bytes), made once: growing `buffer` by a chunk of zeros for each read
    /// is slow in a debug build.
    private var scratch: [UInt8]

    /// A reader of the regular file at `path`, checked and opened as ``InputFile/openRegular(_:what:)`` does.
    ///
    /// - Parameters:
    ///   - what: What the file is, for messages: "trace file".
    ///   - chunkSize: How many bytes each `read` asks for (64 KiB; tests make it small).
    ///   - maxLineLength: The most bytes a line may have (16 MiB, the limit of a script or a snapshot read whole).
    /// - Throws: ``InputFile/Failure`` saying why the file cannot be read.
    package init(path: String, what: String, chunkSize: Int = 64 * 1024, maxLineLength: Int = 16 << 20)
        throws(InputFile.Failure)
    {
        descriptor = try InputFile.openRegular(path, what: what)
        var status = stat()
        unread = fstat(descriptor, &status) == 0 ? Int(status.st_size) : Int.max
        self.what = what
        self.maxLineLength = maxLineLength
        scratch = [UInt8](repeating: 0, count: max(1, chunkSize))
    }

    deinit { close(descriptor) }

    /// Whether another open file holds an exclusive `flock` on the file: a writer that locks what it writes
    /// while it writes it (a run its trace, ``OutputFile/openEmptied(_:mode:sparing:)``) has not finished.
    /// Asked, not held: a shared lock kept while reading would turn away the next writer of the path.
    package var isLockedByWriter: Bool {
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }

    /// The next line, without its `\n`; `nil` at the end of the file.
    ///
    /// - Throws: ``InputFile/Failure`` when reading fails, or when the next line is longer than the limit
    ///   (``InputFile/Failure/Kind/tooLarge``; it is line ``lineNumber`` + 1).
    package func next() throws(InputFile.Failure) -> [UInt8]? {
        while true {
            let scanFrom = scanned
            let found = buffer.withUnsafeBufferPointer { bytes -> Int? in
                guard scanFrom < bytes.count, let base = bytes.baseAddress,
                    let match = memchr(base + scanFrom, 0x0A, bytes.count - scanFrom)
                else { return nil }
                return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(match))
            }
            if let newline = found {
                guard newline - start <= maxLineLength else { throw lineTooLong() }
                let line = Array(buffer[start..<newline])
                start = newline + 1
                scanned = start
                lineNumber += 1
                return line
            }
            scanned = buffer.count
            guard buffer.count - start <= maxLineLength else { throw lineTooLong() }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                lineNumber += 1
                endsWithoutNewline = true
                return line
            }
            try fill()
        }
    }

    private func lineTooLong() -> InputFile.Failure {
        InputFile.Failure(
            kind: .tooLarge, message: "\(what) has a line longer than the limit of \(maxLineLength) bytes")
    }

    /// Drops the bytes already returned and appends up to a chunk more; notes the end of the file.
    private func fill() throws(InputFile.Failure) {
        if start > 0 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        var got = -1
        let wanted = min(scratch.count, unread)
        while got < 0 {
            got = scratch.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if got < 0 && errno != EINTR { throw InputFile.failure(errno, what: what) }
        }
        buffer.append(contentsOf: scratch[..<got])
        unread -= got
        if got == 0 { atEnd = true }
    }
}
