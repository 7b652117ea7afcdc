extension TraceWriter {
    /// Writes a supervisor's line about its host's end (`hostEnded`) after the last line the hosts wrote, with
    /// that line's session and input; nothing when the file holds no line yet (the host ended before its
    /// header, and the next one writes it).
    ///
    /// - Parameters:
    ///   - ending: How it ended: `crash`, `hang`, `exit`, `stop`, `ended`, or `cap`.
    ///   - plugin: The plugin the supervisor laid the end at, if any.
    ///   - report: The supervisor's line about it.
    ///   - restarting: Whether a new host carries the session on.
    ///   - origin: When the trace began (``TraceRecorder/origin``).
    package func writeHostEnded(ending: String, plugin: String?, report: String, restarting: Bool, origin: UInt64) {
        guard let position = TraceTail.position(of: fileDescriptor) else { return }
        var line = TraceLine()
        line.start(kind: TraceEvent.Kind.hostEnded.rawValue, time: TraceRecorder.monotonicNow() &- origin)
        line.add("session", position.session)
        line.add("input", position.input)
        line.add("ending", ending)
        if let plugin { line.add("plugin", plugin) }
        line.add("error", report)
        line.add("restarting", restarting)
        write(line)
    }
}
