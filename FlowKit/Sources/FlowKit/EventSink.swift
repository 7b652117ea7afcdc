/// A coordinator's event listener (``BaseFlowCoordinator/onEvent``), boxed: the request path takes the
/// box once and reports each event through it without retaining the listener's closure again.
final class EventSink {
    let send: @MainActor (FlowEvent) -> Void

    init(_ send: @escaping @MainActor (FlowEvent) -> Void) {
        self.send = send
    }

    @MainActor @inline(__always)
    func callAsFunction(_ event: FlowEvent) {
        // Whoever calls holds the box.
        Unmanaged.passUnretained(self).withGuaranteed { $0.send(event) }
    }
}
