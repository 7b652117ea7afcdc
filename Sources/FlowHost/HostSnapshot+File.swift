import FlowKit
import Glibc

/// Why a snapshot file could not be read or written: one line naming the file and the cause.
public struct SnapshotFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of problems, which decide `flowhost run --restore`'s exit code.
    public enum Kind: String, Hashable, Sendable {
        /// The file does not exist (exit 66).
        case notFound
        /// The file cannot be read: a directory, no permission (exit 66).
        case unreadable
        /// Not a snapshot, not JSON, a member missing or of the wrong type, a version this flowhost does not
        /// read (exit 65).
        case invalid
        /// The file cannot be written.
        case unwritable
    }

    /// The snapshot file, as given.
    public var file: String
    public var kind: Kind
    /// What went wrong, lowercase, then `; ` and a hint when one helps.
    public var message: String

    public init(file: String, kind: Kind, message: String) {
        self.file = file
        self.kind = kind
        self.message = message
    }

    /// `FILE: message`.
    public var description: String { "\(file): \(message)" }
}

extension HostSnapshot {
    /// Reads the snapshot file at `path`.
    ///
    /// - Throws: ``SnapshotFileError``: `notFound`, `unreadable`, or `invalid` (not JSON, not a snapshot,
    ///   a newer version, a member missing or of the wrong type).
    public static func load(path: String) throws(SnapshotFileError) -> HostSnapshot {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, what: "snapshot file", limit: Manifest.defaultMaxSize)
        } catch {
            throw SnapshotFileError(
                file: path, kind: error.kind == .notFound ? .notFound : .unreadable, message: error.message)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SnapshotFileError(file: path, kind: .invalid, message: "not a snapshot: the file is not UTF-8 text")
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            throw SnapshotFileError(file: path, kind: .invalid, message: "not a snapshot: not valid JSON: \(error)")
        }
        do {
            return try HostSnapshot(json: json)
        } catch {
            throw SnapshotFileError(file: path, kind: .invalid, message: error.message)
        }
    }

    /// Writes the snapshot to `path` atomically: to a temporary file beside it, then renamed over it, so
    /// that a crash leaves the previous file or the new one, never half of one.
    ///
    /// - Throws: ``SnapshotFileError`` (`unwritable`) naming the cause; the previous file is left as it was.
    public func write(to path: String) throws(SnapshotFileError) {
        func failure(_ what: String) -> SnapshotFileError {
            SnapshotFileError(
                file: path, kind: .unwritable,
                message: "cannot write snapshot file: \(what): \(String(cString: strerror(errno)))")
        }
        var template = Array((path + ".tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure("cannot create a temporary file beside it") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        let bytes = Array((json.prettyDescription + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("cannot write the temporary file")
                unlink(temporary)
                throw error
            }
            written += count
        }
        // The data reaches the disk before the rename makes it the file.
        let mask = umask(0)
        umask(mask)
        guard fsync(descriptor) == 0, fchmod(descriptor, 0o666 & ~mask) == 0 else {
            let error = failure("cannot flush the temporary file")
            unlink(temporary)
            throw error
        }
        closed = true
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename the temporary file over it")
            unlink(temporary)
            throw error
        }
    }
}
