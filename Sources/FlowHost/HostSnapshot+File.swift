import FlowKit
import FlowManifest
import Glibc
import HostSupport

/// Why a snapshot file could not be read or written: one line naming the file and the cause.
package struct SnapshotFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of problems, which decide `flowhost run --restore`'s exit code.
    package enum Kind: String, Hashable, Sendable {
        /// The file does not exist (exit 66).
        case notFound
        /// The file cannot be read: a directory, too large, no permission (exit 65, as a manifest, a script or a
        /// trace that cannot be read).
        case unreadable
        /// Not a snapshot, not JSON, a member missing or of the wrong type, a version this flowhost does not
        /// read (exit 65).
        case invalid
        /// The file cannot be written.
        case unwritable
    }

    /// The snapshot file, as given.
    package var file: String
    package var kind: Kind
    /// What went wrong, lowercase, then `; ` and a hint when one helps.
    package var message: String

    package init(file: String, kind: Kind, message: String) {
        self.file = file
        self.kind = kind
        self.message = message
    }

    /// `FILE: message`, on one line: a message that quotes the snapshot (a screen's `style`) has its control
    /// characters, newlines included, as `?`, so that what someone wrote in a snapshot cannot print a line
    /// of its own under the error.
    package var description: String { "\(file): \(PrintableText.sanitized(message))" }
}

extension HostSnapshot {
    /// Reads the snapshot file at `path`.
    ///
    /// - Throws: ``SnapshotFileError``: `notFound`, `unreadable`, or `invalid` (not JSON, not a snapshot,
    ///   a newer version, a member missing or of the wrong type).
    package static func load(path: String) throws(SnapshotFileError) -> HostSnapshot {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, what: "snapshot file", limit: Manifest.defaultMaxSize)
        } catch {
            throw SnapshotFileError(
                file: path, kind: error.kind == .notFound ? .notFound : .unreadable, message: error.message)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let place = InputFile.firstInvalidUTF8(in: bytes).map { " (line \($0.line), column \($0.column))" } ?? ""
            throw SnapshotFileError(
                file: path, kind: .invalid, message: "not a snapshot: the file is not UTF-8 text\(place)")
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
    /// - Parameter durable: Flush it to the disk before it replaces the previous file, so that not even a
    ///   power cut leaves an empty file; a supervised host, which saves after every command only to survive
    ///   its own crash, goes without.
    /// - Throws: ``SnapshotFileError`` (`unwritable`) naming the cause; the previous file is left as it was.
    package func write(to path: String, durable: Bool = true) throws(SnapshotFileError) {
        do {
            try AtomicFile.write(
                Array((json.prettyDescription + "\n").utf8), to: path, mode: AtomicFile.defaultMode,
                durable: durable)
        } catch {
            throw SnapshotFileError(
                file: path, kind: .unwritable, message: "cannot write snapshot file: \(error.description)")
        }
    }
}
