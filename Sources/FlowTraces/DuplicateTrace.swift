import FlowKit
import HostSupport

/// Two trace arguments that hold one recording: the same file by two names (a path given twice, a symbolic
/// or hard link), or a copy of it. Reading both would count the recording twice (the flow graph's edge
/// counts; the traces an experiment report says it read, and its warnings, though a subject counts once
/// there anyway), so the commands that read several traces refuse them, naming both. A recording found again
/// further into a file (traces joined whole) is read once, with a warning (``TraceReader/recordings``).
package struct DuplicateTrace: Sendable, Hashable, CustomStringConvertible {
    /// How the two are one recording.
    package enum Kind: Sendable, Hashable {
        /// One file: the same device and inode.
        case sameFile
        /// Two files with the same header, which holds a `recording` id: a copy (whole, or of a trace still
        /// being written); since flowhost writes a random ``Trace/recordingId()`` in each header, never two
        /// recordings.
        case sameRecording
    }

    /// The argument that names it first, and the one that names it again.
    package var first: String
    package var second: String
    package var kind: Kind

    /// `'b.jsonl' is the same file as 'a.jsonl'; give each trace once`.
    package var description: String {
        switch kind {
        case .sameFile: "'\(second)' is the same file as '\(first)'; give each trace once"
        case .sameRecording:
            "'\(second)' holds the same recording as '\(first)' (its header is the same: a copy); give each trace once"
        }
    }

    /// The first argument of `files` that names a file an earlier one names (by device and inode, symbolic
    /// links followed); `nil` when each names its own. A file that cannot be examined is left to the reading,
    /// which says why.
    package static func sameFile(in files: [String]) -> DuplicateTrace? {
        var seen: [FileIdentity: String] = [:]
        for file in files {
            guard let identity = FileIdentity(path: file) else { continue }
            let key = identity.file
            if let first = seen[key] { return DuplicateTrace(first: first, second: file, kind: .sameFile) }
            seen[key] = file
        }
        return nil
    }

    /// The first of `files` whose header, in `headers` (in the same order), equals an earlier one's: only the
    /// first line of each file is compared, so traces of any size cost nothing more. A header without a
    /// `recording` id (a trace written before flowhost wrote one) is never taken for a copy: two runs begun
    /// in the same second wrote the same header then, and both are recordings of their own.
    package static func sameRecording(in files: [String], headers: [TraceEvent]) -> DuplicateTrace? {
        var seen: [TraceEvent: String] = [:]
        for (file, header) in zip(files, headers) where header["recording"] != nil {
            if let first = seen[header] { return DuplicateTrace(first: first, second: file, kind: .sameRecording) }
            seen[header] = file
        }
        return nil
    }

    /// ``sameFile(in:)``, else ``sameRecording(in:headers:)`` of the files' headers, each read from its
    /// first line; `nil` also when a file cannot be read as a trace, which reading it then says.
    ///
    /// - Parameter members: The members the caller reads of the traces' lines
    ///   (``TraceReader/headers(of:reading:)``).
    package static func find(in files: [String], reading members: Set<String>? = nil) -> DuplicateTrace? {
        if let same = sameFile(in: files) { return same }
        guard let headers = try? TraceReader.headers(of: files, reading: members) else { return nil }
        return sameRecording(in: files, headers: headers)
    }
}

extension Trace {
    /// A new recording's id for its header (`recording`): 128 random bits in 32 hexadecimal digits.
    package static func recordingId() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
