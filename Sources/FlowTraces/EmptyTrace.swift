import HostSupport

/// A trace file given among others that holds no line but empty ones: a run killed before it wrote its
/// header, or one still writing that has not written it yet. `experiments report` and `graph --trace` leave it
/// out with a warning; alone, or when every trace given is one, reading it is the error it is.
package struct EmptyTrace: Sendable, Hashable {
    package let file: String
    /// Whether a run holds a lock on the file as it writes it (``TraceReader/isBeingWritten``): its header is
    /// still to come.
    package let isBeingWritten: Bool

    /// The empty trace at `path`; `nil` when the file holds a line that is not empty, or cannot be read (its
    /// reader says why). It reads up to the first line that is not empty, in the memory of that line.
    package init?(path: String) {
        do {
            let lines = try FileLineReader(path: path, what: "trace file", maxLineLength: TraceReader.maxLineLength)
            while let line = try lines.next() {
                if !line.isEmpty { return nil }
            }
            file = path
            isBeingWritten = lines.isLockedByWriter
        } catch {
            return nil
        }
    }

    /// `given` less its empty traces, and those, when there are empty ones among others; `given` whole when it
    /// is one trace, or only empty ones.
    package static func leftOut(of given: [String]) -> (traces: [String], empty: [EmptyTrace]) {
        let empty = given.count > 1 ? given.compactMap(EmptyTrace.init(path:)) : []
        guard empty.count < given.count else { return (given, []) }
        let files = Set(empty.map(\.file))
        return (given.filter { !files.contains($0) }, empty)
    }

    /// The warning that `reader` (`the report`, `the graph`) leaves it out.
    package func warning(leftOutBy reader: String) -> String {
        isBeingWritten
            ? "\(file) is empty so far (a run is still writing it, and has not written its header yet): \(reader) leaves it out"
            : "\(file) is empty (a run killed before it wrote its header): \(reader) leaves it out"
    }
}
