/// Follows the sessions of a trace's events in the order they are read, as flowhost writes them: each
/// session's lines together, one session after the other. A `session` line begins a session, as does an
/// event of another session than the one before it; a `subjectsEnded` line, which ends a run, begins none.
///
/// What it keeps is the number of the session under way, so that a reader that needs a few figures of each
/// event (`experiments report`, the pass of `replay` that checks a trace) follows a session of any size in
/// the same memory; ``TraceSessionBuilder`` keeps the sessions themselves.
struct TraceSessionOrder {
    /// The number of the session under way; `nil` before the first event.
    private(set) var current: Int?

    /// Follows `event`, the next event read.
    ///
    /// - Returns: Whether `event` begins a session.
    /// - Throws: ``TraceError``, without a file or a line (the caller knows them), when `event` belongs to a
    ///   session that another began after, or begins the session under way a second time or one of a lower
    ///   number.
    mutating func follow(_ event: TraceEvent) throws(TraceError) -> Bool {
        // A `--subjects` run's last line ends the run, not a session: at session 0, the header's, for a run stopped
        // before its first subject.
        guard event.kind != .subjectsEnded else { return false }
        if let problem = Self.interleaving(event, after: current) { throw TraceError(problem) }
        let begins = event.kind == .session || current != event.session
        current = event.session
        return begins
    }

    /// Why `event` cannot follow the lines of session `current`, if it cannot: an event of an earlier session
    /// than it, a second `session` line of it, or the `session` line of an earlier session (flowhost numbers
    /// its sessions up, so that is a trace merged with one whose sessions are fewer, or made by hand). A header
    /// (a trace's lines after another's, as `cat` joins them) begins anew.
    private static func interleaving(_ event: TraceEvent, after current: Int?) -> String? {
        guard let current, event.kind != .trace else { return nil }
        let hint =
            "flowhost writes each session's lines together, so this file's sessions are interleaved (traces merged line by line?); give each trace as it was recorded"
        if event.kind == .session, event.session == current {
            return "session \(event.session) begins a second time: \(hint)"
        }
        if event.kind == .session, event.session < current {
            return "session \(event.session) begins after session \(current): \(hint)"
        }
        if event.kind != .session, event.session < current {
            return "an event of session \(event.session) ('\(event.kind)') after session \(current) began: \(hint)"
        }
        return nil
    }
}
