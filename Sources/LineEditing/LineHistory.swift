import FlowKit
import Glibc
import HostSupport

/// The lines entered at the prompt, oldest first, kept between runs in a file of one line per entry.
///
/// Blank lines are not kept, nor a line equal to the one before it; past ``limit`` the oldest go. The file
/// is rewritten whole (written beside, then renamed over), so it never holds more than ``limit`` lines and
/// a crash mid-write leaves the previous one. Two shells running at once each write their own view; the
/// last to save wins.
package struct LineHistory: Equatable, Sendable {
    package private(set) var entries: [String]
    /// How many entries are kept.
    package let limit: Int

    package init(_ entries: [String] = [], limit: Int = 1000) {
        self.limit = max(1, limit)
        self.entries = []
        for entry in entries { add(entry) }
    }

    /// Adds `line`, without its surrounding whitespace. Returns whether it was added: a blank line or a
    /// repeat of the last entry is not.
    @discardableResult
    package mutating func add(_ line: String) -> Bool {
        // An entry is one line of the file.
        let entry = line.trimmingWhitespace().filter { $0 != "\n" && $0 != "\r" }
        guard !entry.isEmpty, entry != entries.last else { return false }
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
        return true
    }

    // MARK: - The file

    /// Where the history lives: `$XDG_STATE_HOME/flowhost/history`, or `~/.local/state/flowhost/history`
    /// when `XDG_STATE_HOME` is unset, empty or relative (as the XDG base directory specification says);
    /// `nil` without a home directory either.
    package static func defaultPath(environment: (String) -> String? = ProcessInfoLite.environment) -> String? {
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/flowhost/history" }
        guard let home = environment("HOME"), !home.isEmpty else { return nil }
        return home + "/.local/state/flowhost/history"
    }

    /// The most of the file's end that ``load(from:limit:)`` reads: 1 MiB, a thousand lines of a kilobyte.
    package static let maxReadSize = 1 << 20

    /// The history in the file at `path`; empty when there is no file (or directory) yet.
    ///
    /// Only the file's last ``maxReadSize`` bytes are read, so a huge file costs no more than a small one.
    /// The file must be a regular file: a FIFO (which would block), a device (`/dev/zero`, which never
    /// ends), a directory or a symbolic link (which saving would replace) is refused. Lines with control
    /// characters are left out.
    ///
    /// - Throws: ``FlowError`` when the file exists but is not a regular file or cannot be read, or when its
    ///   directory is not private (``PrivateDirectory``).
    package static func load(
        from path: String, limit: Int = 1000, maxReadSize: Int = maxReadSize
    ) throws(FlowError) -> LineHistory {
        // A history in a directory others could write is theirs to fill with lines to recall.
        if let directory = directory(of: path), let problem = PrivateDirectory.problem(directory) {
            throw PrivateDirectory.refusal(directory, problem, purpose: "history")
        }
        let end: (bytes: [UInt8], isWhole: Bool)
        do {
            end = try InputFile.readEnd(path, what: "history file \(path)", limit: maxReadSize)
        } catch {
            // Nothing to read yet; if the place cannot hold a file, saving says so.
            if error.kind == .notFound { return LineHistory(limit: limit) }
            throw FlowError(error.message)
        }
        var lines = end.bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // Cut in the middle of a line: its end is not an entry.
        if !end.isWhole { lines.removeFirst() }
        // Recalled, a line is written to the terminal as it is: one with control characters (escape
        // sequences) was not typed at the prompt, which reads those as keys.
        let entries = lines.map { String(decoding: $0, as: UTF8.self) }
            .filter { !$0.isEmpty && !$0.unicodeScalars.contains(where: isControl) }.suffix(limit)
        return LineHistory(Array(entries), limit: limit)
    }

    /// Whether `scalar` is a C0 or C1 control character or DEL; a tab is not.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F..<0xA0).contains(scalar.value)
    }

    /// Writes the history to `path`, creating its directory (and parents, private to the user) as needed.
    ///
    /// - Throws: ``FlowError`` naming the file or directory that could not be written, and why.
    package func save(to path: String) throws(FlowError) {
        try Self.makeDirectories(for: path)
        do {
            try AtomicFile.write(Array(entries.map { $0 + "\n" }.joined().utf8), to: path, mode: 0o600)
        } catch {
            throw FlowError("cannot write history file \(path): \(error.reason)")
        }
    }

    /// Makes the file's directory, a ``PrivateDirectory``, and the parents it lacks.
    private static func makeDirectories(for path: String) throws(FlowError) {
        guard let directory = directory(of: path) else { return }
        try PrivateDirectory.prepare(directory, for: "history")
    }

    /// The directory of the file at `path`; `nil` for a file in `/` or a relative name.
    private static func directory(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
        return String(path[..<slash])
    }
}
