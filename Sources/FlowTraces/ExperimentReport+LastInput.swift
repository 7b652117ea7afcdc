import FlowKit

extension ExperimentReport {
    /// Whether the session being read stopped in the middle of an input: a `--subjects` run stopped or killed
    /// there (Ctrl-C stops one between two subjects) leaves its last subject's script cut short, with no
    /// outcome the report could count, so the report leaves that subject out.
    struct LastInput {
        /// The subject of the session being read.
        private(set) var subject: String?
        /// Whether its last input has its `screen` line (or a `hostEnded` after it), which ends every input.
        private var isFinished = true

        /// Follows `event`, the next event read.
        mutating func read(_ event: TraceEvent) {
            switch event.kind {
            case .session:
                subject = event["subject"]?.string
                isFinished = false  // Its start is to come.
            case .input: isFinished = false
            case .screen, .hostEnded: isFinished = true
            case .trace: (subject, isFinished) = (nil, true)
            default: break
            }
        }

        /// The subject whose script the recording's run stopped in, when `subjects` says it is a `--subjects`
        /// run's and the session being read is cut short: `""` for a session without a subject.
        func cutSubject(subjects: Int?) -> String? {
            subjects == nil || isFinished ? nil : subject ?? ""
        }
    }
}
