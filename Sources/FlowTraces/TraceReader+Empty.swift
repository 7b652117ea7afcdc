import HostSupport

extension TraceReader {
    /// Whether the file at `path` holds no line but empty ones, as a run killed before it wrote its header
    /// leaves its trace: the file ``init(path:chunkSize:)`` calls empty. `false` for a file that cannot be read,
    /// whose reader says why. It reads up to the first line that is not empty, in the memory of that line.
    package static func isEmpty(_ path: String) -> Bool {
        do {
            let lines = try FileLineReader(path: path, what: "trace file", maxLineLength: maxLineLength)
            while let line = try lines.next() {
                if !line.isEmpty { return false }
            }
            return true
        } catch {
            return false
        }
    }
}
