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
        let sibling = BaseFlowCoordinator(
            name: "sibling", services: [RecordingService("sibling", log: log)])
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
            log.entries.filter { $0.hasSuffix("willTerminate") } == [
                "parent.willTerminate", "sibling.willTerminate",
            ])
    }

    @Test func aServiceStoppedWhenItsFlowFinishedHearsNothingMore() {
        let log = Log()
        let parent = BaseFlowCoordinator(services: [])
        let child = BaseFlowCoordinator(
            name: "child", services: [FinishingService(), RecordingService("later", log: log)])
        parent.start()
        parent.openChild(child, style: .modal)
        var events: [FlowEvent] = []
        parent.onEvent = { events.append($0) }

        parent.send(.willTerminate)

        #expect(log.entries == ["later.start", "later.stop"])
        #expect(
            events.filter { $0.kind == .lifecycleDelivered || $0.kind == .serviceStopped } == [
                .serviceStopped("RecordingService"), .serviceStopped("FinishingService"),
                .lifecycleDelivered(.willTerminate, to: "FinishingService"),
            ])
    }

    @Test func aServiceRemovedAsAnotherHearsAnEventHearsNothingMore() {
        let log = Log()
        let removed = RecordingService("removed", log: log)
        let coordinator = BaseFlowCoordinator(services: [
            RemovingService(removing: removed), removed, RecordingService("kept", log: log),
        ])
        coordinator.start()
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        coordinator.send(.willEnterBackground)

        #expect(
            log.entries == ["removed.start", "kept.start", "removed.stop", "kept.willEnterBackground"])
        #expect(
            events == [
                .serviceStopped("RecordingService"),
                .lifecycleDelivered(.willEnterBackground, to: "RemovingService"),
                .lifecycleDelivered(.willEnterBackground, to: "RecordingService"),
            ])
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

/// Removes another service from its coordinator as the app enters the background.
@MainActor
private final class RemovingService: CoordinatorServiceLifeCycleProtocol {
    let removing: any CoordinatorServiceProtocol
    private weak var coordinator: BaseFlowCoordinator?
    init(removing: any CoordinatorServiceProtocol) { self.removing = removing }
    func start(with coordinator: any FlowCoordinator) {
        self.coordinator = coordinator as? BaseFlowCoordinator
    }
    func stop() {}
    func willEnterBackground() { coordinator?.removeService(removing) }
}
