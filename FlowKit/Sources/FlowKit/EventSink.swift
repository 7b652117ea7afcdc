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
