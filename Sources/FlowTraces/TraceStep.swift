import FlowKit

/// What a replay reads of a trace, one at a time: a session's start, then each of its inputs with the events it
/// caused. Read so (``TraceReader/nextStep()``), a session of any length is replayed in the memory of one input,
/// where read as a ``Trace/Session`` it is held whole (a day's interactive session traced, 43 MB, took 217 MB).
package enum TraceStep: Sendable {
    /// A session begins: a fresh host replays it.
    case session(number: Int, subject: String?)
    /// One of its inputs, complete.
    case input(Trace.Input)
    /// A trace joined whole to the one before it (`cat a.jsonl b.jsonl`) begins: its header, which says how its
    /// sessions were recorded (what it redacts, its payload limit, its FlowKit).
    case header(TraceEvent)
}

/// Makes ``TraceStep``s of a trace's events as they are read, grouping them as ``TraceSessionBuilder`` does: a
/// `session` line, or an event of another session than the one before it, begins a session; an `input` line
/// begins an input, and the events after it with its number, its `screen` line and the late ones after that,
/// are its own until the next input or session begins.
///
/// Unlike a session built whole, an input is let go once the next one begins: an event of an earlier input that
/// comes after a later one began (only a late one, which a replay does not compare, in a trace flowhost wrote)
/// and the events before a session's first input are left out.
struct TraceStepBuilder {
    private var order = TraceSessionOrder()
    /// The input whose events are being read.
    private var building: Trace.Input?

    /// Adds `event`, appending to `ready` the steps it completes: the input it ends, the session it begins.
    ///
    /// - Throws: ``TraceError``, without a file or a line, as ``TraceSessionBuilder/add(_:keeping:)`` does.
    mutating func add(_ event: TraceEvent, to ready: inout [TraceStep]) throws(TraceError) {
        if try order.follow(event) {
            endInput(to: &ready)
            // A header (traces joined whole) begins no session: the lines after it do.
            if event.kind == .trace {
                ready.append(.header(event))
                return
            }
            let subject = event.kind == .session ? event["subject"]?.string : nil
            ready.append(.session(number: event.session, subject: subject))
            if event.kind == .session { return }
        }
        if event.kind == .input {
            endInput(to: &ready)
            building = Trace.Input(record: event, events: [], screen: nil)
            return
        }
        guard building?.number == event.input else { return }
        if event.kind == .screen {
            building?.screen = event
        } else {
            building?.events.append(event)
        }
    }

    /// The input being read, now ended by the end of the trace.
    mutating func finish() -> TraceStep? {
        defer { building = nil }
        return building.map { .input($0) }
    }

    private mutating func endInput(to ready: inout [TraceStep]) {
        guard let input = building else { return }
        building = nil
        ready.append(.input(input))
    }
}
