import FlowKit

/// Comparing what an input caused when recorded with what it causes replayed.
extension TraceReplay {
    /// The first difference between what `input` caused when recorded and when replayed, if any.
    ///
    /// - Parameter endsRecording: Whether `input` is the last of its recording: another recording's trace
    ///   joined after it follows. It may have been cut short there, its screen line unwritten.
    func compare(
        _ expected: [TraceEvent], _ got: [TraceEvent], screens: (recorded: TraceEvent?, replayed: TraceEvent?),
        input: Trace.Input, session: ReplayedSession, endsRecording: Bool
    ) -> ReplayDivergence? {
        let roots = session.roots
        func divergence(expected: String, got: String) -> ReplayDivergence {
            ReplayDivergence(
                session: session.number, subject: session.subject, step: input.number,
                steps: session.inputs - 1, command: input.command, at: input.record["at"]?.string,
                expected: expected, got: got, screen: screens.replayed?.screenLines ?? [],
                recordedScreen: screens.recorded?.screenLines ?? [])
        }
        for index in 0..<max(expected.count, got.count) {
            let recorded = index < expected.count ? expected[index] : nil
            let replayed = index < got.count ? got[index] : nil
            guard let recorded, let replayed else {
                return divergence(
                    expected: recorded?.summary ?? Self.nothingMore(screens.recorded),
                    got: replayed?.summary ?? Self.nothingMore(screens.replayed))
            }
            var was = Self.comparable(recorded, root: roots.recorded)
            var now = Self.comparable(replayed, root: roots.replayed, like: recorded)
            if let subjects = pseudonymousSubjects(recorded, replayed) {
                if let before = pseudonyms[subjects.recorded], before != subjects.replayed {
                    return divergence(
                        expected: recorded.summary + " (replayed as '\(before)' before)", got: replayed.summary)
                }
                pseudonyms[subjects.recorded] = subjects.replayed
                was["subject"] = nil
                now["subject"] = nil
            }
            if was != now {
                return divergence(
                    expected: Self.describe(recorded, against: replayed),
                    got: Self.describe(replayed, against: recorded))
            }
        }
        // Every finished step has its screen line (the trace's last, cut short, is not compared, nor is a
        // recording's last, which a trace joined after it follows): a trace without one here lost it, and the
        // replay cannot say the screen is as recorded.
        if screens.recorded == nil, !endsRecording, let replayed = screens.replayed {
            return divergence(
                expected: "the screen: no screen line; the trace lost it", got: "the screen: " + replayed.screenLines[0]
            )
        }
        if let recorded = screens.recorded, let replayed = screens.replayed,
            Self.comparableScreen(recorded, root: roots.recorded, command: input.command, replayed: replayed)
                != Self.comparableScreen(replayed, root: roots.replayed, command: input.command, replayed: replayed)
        {
            let (was, now) = Self.firstDifference(recorded.screenLines, replayed.screenLines)
            return divergence(expected: "the screen: " + was, got: "the screen: " + now)
        }
        return nil
    }

    /// The members an event of a kind gained after traces were written with it: a recorded line without one
    /// is from such a trace (or had nothing to say in it), and the replayed line's is not compared with it. A
    /// recorded line that has one is compared as any member is.
    static let membersSince: [TraceEvent.Kind: Set<String>] = [
        // The services that stopped with a plugin that served and is refused.
        .discoveryProblem: ["services"],
        // The plugin whose library was written over a removed plugin's.
        .pluginRemoved: ["nowHolds"],
    ]

    /// What of `event` is compared: its kind and members, without the ignored ones, the root coordinator
    /// named `(root)`; for a replayed event, without those of ``membersSince`` that `recorded`, the line it is
    /// compared with, does not have.
    static func comparable(_ event: TraceEvent, root: String, like recorded: TraceEvent? = nil) -> [String: JSONValue] {
        var fields = event.fields.filter { !ignored.contains($0.key) }
        if let recorded, recorded.kind == event.kind {
            for member in membersSince[event.kind] ?? [] where recorded[member] == nil { fields[member] = nil }
        }
        fields["kind"] = .string(event.kind.rawValue)
        if fields["coordinator"]?.string == root { fields["coordinator"] = "(root)" }
        if fields["root"] != nil { fields["root"] = "(root)" }
        return fields
    }

    /// What of the screen line `screen` is compared, as ``comparable(_:root:like:)``, but for a `save` that
    /// the replay took (`replayed`, ok): without its status and error, since the replay writes nothing
    /// (``HostShell/writesSnapshots``) and so cannot fail where the recorded run's writing did (a directory
    /// gone, a full disk, a file that was the recorded run's own).
    static func comparableScreen(
        _ screen: TraceEvent, root: String, command: String, replayed: TraceEvent
    ) -> [String: JSONValue] {
        var fields = comparable(screen, root: root)
        if replayed["status"]?.string == "ok", command.split(separator: " ", maxSplits: 1).first == "save" {
            fields["status"] = nil
            fields["error"] = nil
        }
        return fields
    }

    /// `event`'s summary, with the members that differ from `other` after it when the summaries are alike.
    private static func describe(_ event: TraceEvent, against other: TraceEvent) -> String {
        guard event.summary == other.summary else { return event.summary }
        let mine = comparable(event, root: "")
        let theirs = comparable(other, root: "")
        let differing = Set(mine.keys).union(theirs.keys).sorted().filter { mine[$0] != theirs[$0] }
        return event.summary + " (" + differing.map { "\($0): \(mine[$0] ?? .null)" }.joined(separator: ", ") + ")"
    }

    /// What an input that caused no more events came to: `nothing more`, with the error that stopped it.
    private static func nothingMore(_ screen: TraceEvent?) -> String {
        guard let error = screen?["error"]?.string else { return "nothing more" }
        return "nothing more; \(screen?["status"]?.string ?? "error"): \(error)"
    }

    /// The first line that differs between two screens' lines.
    private static func firstDifference(_ recorded: [String], _ replayed: [String]) -> (String, String) {
        for index in 0..<max(recorded.count, replayed.count) {
            let was = index < recorded.count ? recorded[index] : "(nothing)"
            let now = index < replayed.count ? replayed[index] : "(nothing)"
            if was != now { return (was, now) }
        }
        return ("the same lines", "other members")
    }
}
