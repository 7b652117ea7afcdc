import FlowKit
import Testing

/// What a lifecycle event's delivery reports when a service that hears it changes the coordinator: finishes
/// its flow, or removes a service.
@MainActor
struct LifecycleDeliveryTests {
    @Test func aServiceThatFinishesItsFlowAsItHearsAnEventIsStillReported() {
        let log = Log()
        let parent = BaseFlowCoordinator(services: [RecordingService("parent", log: log)])
        let child = BaseFlowCoordinator(name: "child", services: [FinishingService()])
        let sibling = BaseFlowCoordinator(name: "sibling", services: [RecordingService("sibling", log: log)])
        parent.start()
        parent.openChild(child, style: .modal)
        parent.openChild(sibling, style: .inline)
        var events: [FlowEvent] = []
        parent.onEvent = { events.append($0) }

        parent.send(.willTerminate)

        #expect(child.parent == nil)
        #expect(
            events.filter { $0.kind == .lifecycleDelivered } == [
                .lifecycleDelivered(.willTerminate, to: "RecordingService"),
                .lifecycleDelivered(.willTerminate, to: "FinishingService"),
                .lifecycleDelivered(.willTerminate, to: "RecordingService"),
            ])
        #expect(
            log.entries.filter { $0.hasSuffix("willTerminate") } == ["parent.willTerminate", "sibling.willTerminate"])
    }
}

/// Finishes its coordinator's flow as the app terminates.
@MainActor
private final class FinishingService: CoordinatorServiceLifeCycleProtocol {
    private weak var coordinator: (any FlowCoordinator)?
    func start(with coordinator: any FlowCoordinator) { self.coordinator = coordinator }
    func stop() {}
    func willTerminate() { coordinator?.finish(with: .cancelled) }
}
