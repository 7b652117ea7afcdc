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
        /// Whether it was cut: its format marks its end, and it has no `subjectsEnded` line (so far).
        var isCut: Bool { marksItsEnd && !isEnded }
        /// The sessions read so far.
        var sessions = 0
        /// The subject of the last session read.
        var lastSubject: String?
        /// Whether its `subjectsEnded` line was read: its run stopped as it meant to.
        var isEnded = false
        /// How its run stopped, as that line says, when it is a way this flowhost knows.
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
        /// `subjectsEnded` line, which it lacks, and it has a session, its last subject's, to leave out. The file
        /// is taken for one recording, its first header's.
        static func isCut(_ trace: Trace) -> Bool {
            Recording(header: trace.header, line: 1).marksItsEnd
                && !trace.events.contains { $0.kind == .subjectsEnded }
                && trace.events.contains { $0.kind == .session }
        }
    }
}
