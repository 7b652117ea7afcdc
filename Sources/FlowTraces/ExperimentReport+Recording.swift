import FlowKit

extension ExperimentReport {
    /// One recording of a trace file as the report reads it: the file's, or one joined to it whole (`cat a.jsonl
    /// b.jsonl`), from its header on. What it keeps says whether the run recorded every subject it was to.
    struct Recording {
        /// The line of its header.
        var line: Int
        /// The subjects its run was to simulate (`run --subjects`), as its header says.
        var subjects: Int?
        /// Whether its format ends a `--subjects` run's trace with a `subjectsEnded` line
        /// (``Trace/subjectsEndedVersion``), so that one without it was cut.
        var marksItsEnd: Bool
        /// The sessions read so far.
        var sessions = 0
        /// The subject of the last session read.
        var lastSubject: String?
        /// How its run stopped, once its `subjectsEnded` line is read.
        var ending: TraceRecorder.SubjectsEnding?
        /// The subject the report left out as cut short (``ShortTrace/cutSubject``).
        var cutSubject: String?

        /// The recording whose header is `header`, at `line`.
        init(header: TraceEvent, line: Int) {
            self.line = line
            subjects = header["subjects"]?.int
            marksItsEnd = subjects != nil && (header["version"]?.int ?? 0) >= Trace.subjectsEndedVersion
        }

        /// Whether `trace`, read whole, is a `--subjects` run's that was cut: its format ends such a trace with a
        /// `subjectsEnded` line, which it lacks, and it has a session, its last subject's, to leave out.
        static func isCut(_ trace: Trace) -> Bool {
            Recording(header: trace.header, line: 1).marksItsEnd
                && !trace.events.contains { $0.kind == .subjectsEnded }
                && trace.events.contains { $0.kind == .session }
        }
    }
}
