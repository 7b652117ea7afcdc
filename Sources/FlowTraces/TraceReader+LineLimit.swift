import FlowManifest

extension TraceReader {
    /// The most bytes a line of a trace may have: the readers read no longer line, and ``TraceWriter`` writes
    /// none, so that whatever a run writes its readers read.
    ///
    /// It is the longest line a run writes from a script within its limits: an `input` line carries its command
    /// whole, a script line may be as long as the script (16 MiB), and JSON may write each of its bytes as six
    /// (`\u0001`); a MiB more leaves room for the line's other members (its source's path among them). A line is
    /// read whole, so this is also the most memory a line takes a reader.
    package static let maxLineLength = 6 * Manifest.defaultMaxSize + (1 << 20)
}
