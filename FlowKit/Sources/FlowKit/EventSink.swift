/// A coordinator's event listener (``BaseFlowCoordinator/onEvent``), boxed: the request path takes the
/// box once and reports each event through it without retaining the listener's closure again.
final class EventSink {
    let send: @MainActor (FlowEvent) -> Void

    init(_ send: @escaping @MainActor (FlowEvent) -> Void) {
        self.send = send
    }

    @MainActor @inline(__always)
    func callAsFunction(_ event: FlowEvent) {
        send(event)
    }
}

extension Unmanaged where Instance == EventSink {
    /// Reports `event` through a sink its caller holds, without retaining it.
    @MainActor @inline(__always)
    func callAsFunction(_ event: FlowEvent) {
        withGuaranteed { $0.send(event) }
    }
}
