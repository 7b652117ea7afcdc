import FlowKit

/// Groups a trace's events into sessions as they are read: a `session` line starts a session, as does an
/// event of another session than the one before it; an `input` line starts an input, its `screen` line ends
/// it; any other event joins the last input of its session with its number (late ones included), or the
/// session's strays when there is none.
///
/// flowhost writes each session's lines together, one session after the other. A file whose sessions are
/// interleaved (the lines of several traces merged by time, say) is refused rather than grouped: each time
/// the lines switched sessions, the events after the switch would start a session of their own, apart from
/// their inputs, and a report would silently count nobody exposed and no goal reached.
struct TraceSessionBuilder {
    private var order = TraceSessionOrder()
    private var current: Trace.Session?
    /// The index in `current.inputs` of the last input with each number.
    private var inputIndex: [Int: Int] = [:]

    /// Adds `event` to the session being built.
    ///
    /// - Parameter keep: Whether to keep `event` when it is neither a `session` nor an `input` line.
    /// - Returns: The session it ended by starting another.
    /// - Throws: ``TraceError``, without a file or a line (the caller knows them), when `event` belongs to a
    ///   session that another began after, or begins the session under way a second time or one of a lower
    ///   number (``TraceSessionOrder``).
    mutating func add(_ event: TraceEvent, keeping keep: (TraceEvent) -> Bool) throws(TraceError) -> Trace.Session? {
        var ended: Trace.Session?
        if try order.follow(event) {
            ended = current
            // A header (traces joined whole) begins no session, with no inputs to replay: its lines after it do.
            if event.kind == .trace {
                current = nil
                inputIndex = [:]
                return ended
            }
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
