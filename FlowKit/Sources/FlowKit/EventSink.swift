/// A coordinator's event listener (``BaseFlowCoordinator/onEvent``, ``BaseFlowCoordinator/onEventToKeep``),
/// boxed: the request path takes the box once (one retain) and hands each of its events to it.
final class EventSink {
    let send: @MainActor (consuming FlowEvent) -> Void

    init(_ send: @escaping @MainActor (consuming FlowEvent) -> Void) {
        self.send = send
    }

    @MainActor
    func callAsFunction(_ event: consuming FlowEvent) {
        send(event)
    }
}

extension EventSink {
    /// Hands `event` to `sink`, which the caller has seen is there (events are built only for a listener).
    ///
    /// For a sink a request keeps in a local (`let sink = self.sink`) and hands several events: unwrapped
    /// where it is kept (`sink?(event)`, `if let sink`), the sink is retained and released around every
    /// call, two atomic operations an event. Handed here as it is kept, it is borrowed for the call, and
    /// unwrapped here, where nothing else holds it for the compiler to keep alive.
    @MainActor @inline(never)
    static func send(_ event: consuming FlowEvent, to sink: EventSink?) {
        sink!.send(event)
    }
}
