import FlowKit

/// The payloads of a session's requests by `requestId`, to read its events whole: a trace writes a
/// request's payload once, with the first event about the request, and the events after it refer to the
/// request by its `requestId`. ``resolve(_:)`` gives those events the payloads back, so that they compare
/// with the events of a version 1 trace, which repeated them.
struct RequestPayloads {
    /// The members that carry a request's payloads, as written, by `requestId`.
    private var written: [Int: [String: JSONValue]] = [:]
    /// The members a request's first event writes and the events after it leave out.
    private static let names = ["payload", "payloadDigest", "redirectPayload", "redirectPayloadDigest"]

    /// `event` with the payloads of the request it refers to, when it refers to one written before.
    mutating func resolve(_ event: TraceEvent) -> TraceEvent {
        guard let id = event["requestId"]?.int else { return event }
        guard let known = written[id] else {
            // Only a request with a payload is remembered: a session of many requests without one (most) is
            // replayed in the same memory however long it is.
            let members = Self.names.reduce(into: [:]) { members, name in members[name] = event[name] }
            if !members.isEmpty { written[id] = members }
            return event
        }
        var event = event
        for (name, value) in known where event[name] == nil { event[name] = value }
        return event
    }
}
