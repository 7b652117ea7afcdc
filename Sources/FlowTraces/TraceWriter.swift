import FlowKit
import Glibc
import HostSupport
import PluginLoading

/// Writes a trace file: one ``TraceEvent`` per line (JSON Lines), buffered, in the order given.
///
/// The file is created (or emptied) when the writer is made, so that a run that cannot write its trace
/// stops before it starts. Lines are flushed when the buffer fills and by ``close()``; a run that stops
/// before ``close()`` loses what is buffered. A write that fails stops the writing and is kept in
/// ``failure`` for the caller to report once, and so does a line longer than its readers read
/// (``TraceReader/maxLineLength``), which is not written: the trace ends at the line before it.
///
/// A supervised run's file is written by several processes in turn, the supervisor and each host it starts
/// (``init(sharing:path:maxLineLength:)``, ``share()``): each line is then written as it comes.
@MainActor
package final class TraceWriter {
    /// The trace file, as given.
    package let path: String
    /// Why writing stopped, if it did.
    package private(set) var failure: TraceError?
    /// Told why writing stopped, once, as it stops: a run says so at once rather than at its end, which a
    /// supervised host that crashes or restarts at the cap of generations never reaches.
    package var onFailure: ((TraceError) -> Void)?
    /// How many events were written: those the file holds and those buffered for it. Once writing stopped,
    /// those the file holds, its whole lines, which may be fewer than were given (a full disk).
    package var count: Int { written + buffered }
    /// How many lines the file holds; private, as ``buffered``, so that the compiler sees every access to it and
    /// checks none at run time.
    private var written = 0
    /// How many lines the buffer holds.
    private var buffered = 0
    private var descriptor: Int32
    /// A shared file's descriptor once writing stopped (``stop(_:)``), to close.
    private var stoppedDescriptor: Int32 = -1
    /// Whether other processes write the file too (a supervised run's hosts and supervisor, ``SharedTrace``):
    /// each line is then written at once, after what they wrote, so that a host that crashes loses none.
    private var sharesFile: Bool
    /// The file a supervised host was given, as its device and inode, which each write checks its descriptor
    /// still refers to: plugin code that closes or replaces the descriptor gets nothing written to what takes
    /// its place, and the host ends at the command's end, as for its other descriptors (``SupervisorLink``).
    private var givenFile: DescriptorIdentity?
    private var buffer: [UInt8]
    /// How many bytes the file holds: the buffers written so far (a shared file's end before each write).
    private var fileSize = 0
    /// The longest line written; a longer one stops the writing.
    private let maxLineLength: Int
    private static let bufferSize = 256 * 1024

    /// Creates (or empties) the file at `path` for writing, with the permissions a new file gets; a symbolic
    /// link, a FIFO, a device, a directory or another user's file there is refused (``OutputFile``), and so
    /// is one of `sparing`, the files the run reads (its manifest, its script).
    ///
    /// - Parameter maxLineLength: The most bytes a line may have (tests make it small).
    /// - Throws: ``TraceError`` naming the file and the reason.
    package init(path: String, sparing: [RunFile] = [], maxLineLength: Int = TraceReader.maxLineLength)
        throws(TraceError)
    {
        self.path = path
        self.maxLineLength = maxLineLength
        switch OutputFile.openEmptied(path, mode: 0o666, sparing: sparing) {
        case .success(let opened):
            descriptor = opened
            ForkedChild.closeInChildren(opened)  // a helper plugin code forks and leaves running holds no lock
        case .failure(let refusal): throw TraceError("cannot write the trace: \(refusal.reason)", file: path)
        }
        sharesFile = false
        var reserved: [UInt8] = []
        reserved.reserveCapacity(Self.bufferSize)
        buffer = reserved
    }

    /// Writes to `descriptor`, a trace file open for writing that other processes write too, one line at a
    /// time: a supervised host's, given by its supervisor, which opened it with every check of
    /// ``init(path:sparing:maxLineLength:)`` and holds its lock. ``close()`` closes this process's descriptor
    /// only.
    ///
    /// - Parameter path: The file's path, for messages.
    package init(sharing descriptor: Int32, path: String, maxLineLength: Int = TraceReader.maxLineLength) {
        self.path = path
        self.maxLineLength = maxLineLength
        self.descriptor = descriptor
        ForkedChild.closeInChildren(descriptor)
        sharesFile = true
        givenFile = DescriptorIdentity(descriptor: descriptor)
        buffer = []
    }

    /// The descriptor the trace is written through; -1 once closed. A supervisor gives it to each host it starts.
    package var fileDescriptor: Int32 { descriptor }

    /// Writes each line at once from now on, after what other processes wrote: the supervisor's side of a
    /// shared trace, whose hosts write it too.
    package func share() {
        flush()
        sharesFile = true
        // Each write at the end of the file, wherever another process left the offset (a line cut off there).
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_APPEND)
    }

    /// Appends `line`.
    package func write(_ line: borrowing TraceLine) {
        guard descriptor >= 0, fits(line.count, kind: Self.kind(of: line)) else { return }
        appendLine { line.write(into: &$0) }
    }

    /// Appends `event` as one line.
    package func write(_ event: TraceEvent) {
        let text = event.line
        guard descriptor >= 0, fits(text.utf8.count, kind: "\(event.kind)") else { return }
        appendLine { $0.append(contentsOf: text.utf8) }
    }

    /// Whether a line of `length` bytes (without its newline) is one the readers read; if not, writes what is
    /// buffered, which ends at a whole line, and stops the writing with a ``failure`` that says why.
    private func fits(_ length: Int, kind: @autoclosure () -> String) -> Bool {
        guard length > maxLineLength else { return true }
        flush()
        guard descriptor >= 0 else { return false }
        stop(
            TraceError(
                "cannot write the trace: a line of \(length) bytes (an event of kind '\(kind())') is longer than the"
                    + " \(maxLineLength) bytes its readers read", file: path))
        return false
    }

    /// The kind of `line`, which begins with it (``TraceLine/start(kind:time:)``).
    private static func kind(of line: borrowing TraceLine) -> String {
        let members = line.members
        let prefix = Array(#""kind":""#.utf8)
        guard members.starts(with: prefix) else { return "?" }
        let name = members[prefix.count...].prefix { $0 != UInt8(ascii: "\"") }
        return String(decoding: name, as: UTF8.self)
    }

    /// Appends the line `write` writes and its newline, and writes the buffer once it is full.
    ///
    /// The buffer is moved out meanwhile: appended in place, where an append may free the storage it grows
    /// out of, every access to it would be checked for exclusivity at run time, on every line.
    private func appendLine(_ write: (inout [UInt8]) -> Void) {
        buffered += 1
        var output: [UInt8] = []
        swap(&output, &buffer)
        write(&output)
        output.append(0x0A)
        swap(&output, &buffer)
        if sharesFile || buffer.count >= Self.bufferSize { flush() }
    }

    /// Writes what is buffered.
    package func flush() {
        guard descriptor >= 0, !buffer.isEmpty else { return }
        // A child that plugin code forked and that came back into the host's code (``ForkedChild``) writes
        // nothing: the file is its parent's, which writes the same lines, and a shared trace's lines would be
        // in it twice before the child ended itself.
        guard !ForkedChild.isThisProcess else {
            emptyBuffer()
            buffered = 0
            return
        }
        if isReplaced(descriptor) {
            // Not a failure of the trace's, which the supervisor and the next host carry on: this host's end.
            stopQuietly(TraceError("cannot write the trace: plugin code closed or replaced its descriptor", file: path))
            return
        }
        // Where the others' lines end.
        if sharesFile { fileSize = Int(lseek(descriptor, 0, SEEK_END)) }
        guard DescriptorWriter.writeAll(buffer, to: descriptor) else {
            let reason = String(cString: strerror(errno))
            cutToLastWholeLine()
            buffered = 0
            stop(TraceError("cannot write the trace: \(reason)", file: path))
            return
        }
        fileSize += buffer.count
        written += buffered
        buffered = 0
        emptyBuffer()
    }

    /// Empties the buffer, keeping its storage; moved out meanwhile, as in ``appendLine(_:)``.
    private func emptyBuffer() {
        var emptied: [UInt8] = []
        swap(&emptied, &buffer)
        emptied.removeAll(keepingCapacity: true)
        swap(&emptied, &buffer)
    }

    /// Takes a line the failed write left half written (a full disk takes part of a buffer) off the end of
    /// the file, so that the trace ends at its last whole line, as a run's trace does when the run is killed.
    private func cutToLastWholeLine() {
        let end = lseek(descriptor, 0, SEEK_CUR)
        guard end >= fileSize else { return }
        let part = buffer.prefix(Int(end) - fileSize)
        let whole = part.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        _ = ftruncate(descriptor, off_t(fileSize + whole))
        written += part.prefix(whole).reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    /// Stops the writing for `failure`, told to ``onFailure`` at once.
    private func stop(_ failure: TraceError) {
        stopQuietly(failure)
        onFailure?(failure)
    }

    /// Writes nothing from now on, for `failure`, which ``onFailure`` is not told: a supervised host's, whose
    /// trace a write that failed in another process cut short, which that process said. A shared file's
    /// descriptor stays open until ``close()``: a supervised host's is one its supervisor checks is still there.
    package func stopQuietly(_ failure: TraceError) {
        guard descriptor >= 0 else { return }
        self.failure = failure
        if sharesFile {
            stoppedDescriptor = descriptor
        } else {
            ForkedChild.keepInChildren(descriptor)
            Glibc.close(descriptor)
        }
        descriptor = -1
    }

    /// Whether `open`, the descriptor a supervised host was given, no longer refers to its trace: plugin code
    /// closed it, or put another file in its place.
    private func isReplaced(_ open: Int32) -> Bool {
        guard let givenFile else { return false }
        return DescriptorIdentity(descriptor: open) != givenFile
    }

    /// Flushes and closes the file; writing after this does nothing. A descriptor plugin code put in the trace's
    /// place is left open.
    package func close() {
        flush()
        for open in [descriptor, stoppedDescriptor] where open >= 0 {
            ForkedChild.keepInChildren(open)
            if !isReplaced(open) { Glibc.close(open) }
        }
        descriptor = -1
        stoppedDescriptor = -1
    }
}
