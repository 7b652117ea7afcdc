import FlowKit

/// Groups a trace's events into sessions as they are read: a `session` line starts a session, as does an
/// event of another session than the one before it; an `input` line starts an input, its `screen` line ends
/// it; any other event joins the last input of its session with its number (late ones included), or the
/// session's strays when there is none.
struct TraceSessionBuilder {
    private var current: Trace.Session?
    /// The index in `current.inputs` of the last input with each number.
    private var inputIndex: [Int: Int] = [:]

    /// Adds `event` to the session being built.
    ///
    /// - Parameter keep: Whether to keep `event` when it is neither a `session` nor an `input` line.
    /// - Returns: The session it ended by starting another.
    mutating func add(_ event: TraceEvent, keeping keep: (TraceEvent) -> Bool) -> Trace.Session? {
        var ended: Trace.Session?
        if event.kind == .session || current == nil || current?.number != event.session {
            ended = current
            current = Trace.Session(
                number: event.session, subject: event.kind == .session ? event["subject"]?.string : nil, inputs: [])
            inputIndex = [:]
            if event.kind == .session { return ended }
        }
        if event.kind == .input {
            inputIndex[event.input] = current?.inputs.count
            current?.inputs.append(Trace.Input(record: event, events: [], screen: nil))
            return ended
        }
        guard keep(event) else { return ended }
        guard let index = inputIndex[event.input] else {
            current?.stray.append(event)
            return ended
        }
        if event.kind == .screen {
            current?.inputs[index].screen = event
        } else {
            current?.inputs[index].events.append(event)
        }
        return ended
    }

    /// The session being built, now ended by the end of the trace.
    mutating func finish() -> Trace.Session? {
        defer { current = nil }
        return current
    }
}
