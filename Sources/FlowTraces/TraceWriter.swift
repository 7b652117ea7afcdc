import FlowKit
import Glibc
import HostSupport

/// Writes a trace file: one ``TraceEvent`` per line (JSON Lines), buffered, in the order given.
///
/// The file is created (or emptied) when the writer is made, so that a run that cannot write its trace
/// stops before it starts. Lines are flushed when the buffer fills and by ``close()``; a run that stops
/// before ``close()`` loses what is buffered. A write that fails stops the writing and is kept in
/// ``failure`` for the caller to report once.
@MainActor
package final class TraceWriter {
    /// The trace file, as given.
    package let path: String
    /// Why writing stopped, if it did.
    package private(set) var failure: TraceError?
    /// How many events were written.
    package var count: Int { written }
    /// ``count``'s storage, private so that the compiler sees every access to it and checks none at run time.
    private var written = 0
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// How many bytes the file holds: the buffers written so far.
    private var fileSize = 0
    private static let bufferSize = 256 * 1024

    /// Creates (or empties) the file at `path` for writing, with the permissions a new file gets; a symbolic
    /// link, a FIFO, a device, a directory or another user's file there is refused (``OutputFile``), and so
    /// is one of `sparing`, the files the run reads (its manifest, its script).
    ///
    /// - Throws: ``TraceError`` naming the file and the reason.
    package init(path: String, sparing: [RunFile] = []) throws(TraceError) {
        self.path = path
        switch OutputFile.openEmptied(path, mode: 0o666, sparing: sparing) {
        case .success(let opened): descriptor = opened
        case .failure(let refusal): throw TraceError("cannot write the trace: \(refusal.reason)", file: path)
        }
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// Appends `line`.
    package func write(_ line: TraceLine) {
        guard descriptor >= 0 else { return }
        written += 1
        line.write(into: &buffer)
        endLine()
    }

    /// Appends `event` as one line.
    package func write(_ event: TraceEvent) {
        guard descriptor >= 0 else { return }
        written += 1
        buffer.append(contentsOf: event.line.utf8)
        endLine()
    }

    /// Ends the line appended last, and writes the buffer once it is full.
    private func endLine() {
        buffer.append(0x0A)
        if buffer.count >= Self.bufferSize { flush() }
    }

    /// Writes what is buffered.
    package func flush() {
        guard descriptor >= 0, !buffer.isEmpty else { return }
        guard DescriptorWriter.writeAll(buffer, to: descriptor) else {
            failure = TraceError("cannot write the trace: \(String(cString: strerror(errno)))", file: path)
            cutToLastWholeLine()
            Glibc.close(descriptor)
            descriptor = -1
            return
        }
        fileSize += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Takes a line the failed write left half written (a full disk takes part of a buffer) off the end of
    /// the file, so that the trace ends at its last whole line, as a run's trace does when the run is killed.
    private func cutToLastWholeLine() {
        let end = lseek(descriptor, 0, SEEK_CUR)
        guard end >= fileSize else { return }
        let written = buffer.prefix(Int(end) - fileSize)
        let whole = written.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        _ = ftruncate(descriptor, off_t(fileSize + whole))
    }

    /// Flushes and closes the file; writing after this does nothing.
    package func close() {
        flush()
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
