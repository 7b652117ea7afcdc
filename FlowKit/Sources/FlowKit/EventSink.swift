/// A coordinator's event listener (``BaseFlowCoordinator/onEvent``), boxed: the request path takes the
/// box once (one retain) and reports each of its events through it.
final class EventSink {
    let send: @MainActor (FlowEvent) -> Void

    init(_ send: @escaping @MainActor (FlowEvent) -> Void) {
        self.send = send
    }

    @MainActor
    func callAsFunction(_ event: FlowEvent) {
        send(event)
    }
}
