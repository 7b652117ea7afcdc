import HostSupport

/// What a replay found.
package enum ReplayResult: Sendable {
    /// Everything happened as recorded.
    case identical(ReplaySummary)
    /// The first input whose events or screen differ.
    case diverged(ReplayDivergence)
}

/// What an identical replay went through.
package struct ReplaySummary: Sendable, Hashable, CustomStringConvertible {
    /// A plugin whose library differs from the one recorded, though it behaved the same.
    package struct Rebuilt: Sendable, Hashable {
        package var plugin: String
        /// The SHA-256 of the library recorded, and of the one replayed.
        package var recorded: String
        package var replayed: String
    }

    /// The sessions replayed.
    package var sessions: Int
    /// The inputs replayed, starts included.
    package var inputs: Int
    /// The events compared.
    package var events: Int
    /// The plugins whose library differs from the recorded one.
    package var rebuilt: [Rebuilt]
    /// The input the recorded run stopped in, when it did not finish it: the end of the trace, not replayed.
    package var cutShort: CutShort?

    /// Where a trace ends in the middle of an input.
    package struct CutShort: Sendable, Hashable {
        package var session: Int
        package var subject: String?
        /// The input (0 is the start) and its command.
        package var step: Int
        package var command: String
    }

    /// The input in which a supervised run's host ended (`hostEnded`), where the replay stopped: what came
    /// after ran on a host its supervisor restarted at a snapshot, which a replay does not recreate.
    package var hostEnded: HostEnded?

    /// Where a supervised run's host ended.
    package struct HostEnded: Sendable, Hashable {
        package var session: Int
        package var subject: String?
        /// The input (0 is the start) and its command.
        package var step: Int
        package var command: String
        /// `crash`, `hang`, `exit`, `stop`, `ended` or `cap`, and the plugin laid at its door.
        package var ending: String
        package var plugin: String?
        /// Whether the input was replayed: the host ended after it (at the cap of generations), not in it.
        package var replayed: Bool
        /// Whether a new host followed, and whether it carried the session on at the snapshot (else it began a
        /// session of its own).
        package var restarted: Bool
        package var restoredSnapshot: Bool
        /// The inputs the trace has after it, not replayed.
        package var inputsAfter = 0
    }

    /// The inputs replayed after a start: the steps a divergence numbers.
    package var steps = 0

    /// `1 session (its start and 37 steps), 212 events and every screen as recorded`.
    package var description: String {
        let what = sessions == 1 ? "its start" : "their starts"
        return "\(counted(sessions, "session")) (\(what) and \(counted(steps, "step"))), "
            + "\(counted(events, "event")) and every screen as recorded"
    }
}

/// Where a replay first differed from its trace.
package struct ReplayDivergence: Sendable, Hashable {
    /// The session, and its subject when the trace has subjects.
    package var session: Int
    package var subject: String?
    /// The input that diverged (0 is the start), and how many inputs after the start the session has.
    package var step: Int
    package var steps: Int
    /// The input's command, and where the recorded run read it (`FILE:LINE`).
    package var command: String
    package var at: String?
    /// The first event (or the screen) that differs: as recorded, and as replayed.
    package var expected: String
    package var got: String
    /// The screen after the input, replayed and recorded, as lines.
    package var screen: [String]
    package var recordedScreen: [String]
    /// What was replayed up to and including the input that diverged: its session counts, and its events.
    package var replayed = ReplaySummary(sessions: 0, inputs: 0, events: 0, rebuilt: [])
    /// In a redacted trace, the first input of the session, up to the one that diverged, that sent the
    /// placeholder in place of a value the trace leaves out: what depends on that value can differ.
    package var sentPlaceholder: SentPlaceholder?

    /// An input that sent the placeholder: its number, where the recorded run read it, and its command.
    package struct SentPlaceholder: Sendable, Hashable {
        package var step: Int
        package var at: String?
        package var command: String
    }
}
