import FlowHost
import FlowKit
import FlowShell

/// The events a replayed session's recorder wrote, for the comparison to take after each input.
@MainActor
final class ReplayBox {
    var events: [TraceEvent] = []
}

/// A session being replayed: its fresh host and shell, the recorder that writes what the replay does, and what
/// the comparison of its inputs keeps from one to the next.
@MainActor
final class ReplayedSession {
    let number: Int
    let subject: String?
    let host: Host
    let shell: HostShell
    let box = ReplayBox()
    let recorder: TraceRecorder
    /// The root coordinator's name in the recording and in the replay, which are not compared.
    let roots: (recorded: String, replayed: String)
    var payloads = (recorded: RequestPayloads(), replayed: RequestPayloads())
    /// The first input of the session that sent the placeholder in place of a redacted value.
    var sentPlaceholder: ReplayDivergence.SentPlaceholder?
    /// How many of its inputs were read.
    var inputs = 0

    init(
        number: Int, subject: String?, host: Host, redaction: TraceRedaction, maxPayload: Int?, recordedRoot: String
    ) {
        self.number = number
        self.subject = subject
        self.host = host
        shell = HostShell(host: host)
        shell.writesSnapshots = false
        shell.waitsForReloads = false
        let box = box
        recorder = TraceRecorder(redaction: redaction, maxPayload: maxPayload) {
            // A line the recorder wrote is an object with a kind, a time, a session and an input: an event.
            box.events.append(try! $0.event())
        }
        roots = (recordedRoot, host.coordinator.name)
        recorder.beginSession(shell, subject: subject, asRecorded: true)
    }
}
