/// A coordinator's event listener (``BaseFlowCoordinator/onEvent``, ``BaseFlowCoordinator/onEventToKeep``),
/// boxed: the request path takes the box once (one retain) and hands each of its events to it.
///
/// Every listener from an event's coordinator up to the root hears it, outermost first: each box holds the place
/// of the next listener up (``above``), which the coordinators keep as listeners and parents change (`+Listeners`),
/// so that an event reaches them all without a walk up the tree. With one listener (the host's, on the root)
/// ``above`` is `nil` and an event costs what it did when only the nearest listener heard it: no copy, no weak
/// load, and the listener called as it is kept (a `let`, which a call borrows rather than retains).
final class EventSink {
    let send: @MainActor (consuming FlowEvent) -> Void
    /// Where the listeners above hear from: the ``ListenerLink`` of the nearest ancestor that listens, heard
    /// before this one. Strong, so that an event of a nested listener reaches them without a weak load.
    var above: ListenerLink?

    init(_ send: @escaping @MainActor (consuming FlowEvent) -> Void, above: ListenerLink?) {
        self.send = send
        self.above = above
    }

    /// Hands `event` to every listener of the chain, outermost first, so that the host records an event before a
    /// plugin's listener can react to it with requests of its own; each listener above this one gets a copy.
    @MainActor
    func callAsFunction(_ event: consuming FlowEvent) {
        if above != nil { sendAbove(copy event) }
        send(event)
    }

    /// Hands `event` to the listeners above, outermost first, each its own copy: in a loop, not by each calling
    /// the next, so that a nesting thousands of listeners deep does not take a stack frame per listener; out of
    /// line, so that the one-listener path stays as short as it was.
    @MainActor @inline(never)
    private func sendAbove(_ event: consuming FlowEvent) {
        var chain: [EventSink] = []
        var link = above
        while let next = link {
            chain.append(next.sink)
            link = next.sink.above
        }
        for sink in chain.reversed() { sink.send(copy event) }
    }
}

/// A listening coordinator's place in the chain of listeners: what the listeners of its descendants hand their
/// events up to. It stays while the coordinator listens and takes a replaced listener's box, so that replacing a
/// listener tells no coordinator below.
final class ListenerLink {
    /// The coordinator's listener.
    var sink: EventSink

    init(_ sink: EventSink) {
        self.sink = sink
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
        sink!(event)
    }
}
