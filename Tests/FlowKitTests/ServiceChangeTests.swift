import FlowKit
import Testing

/// Services added to and removed from a running coordinator, as when a plugin is dropped in or taken out.
@MainActor
struct ServiceChangeTests {
    @Test func anAddedServiceStartsAtOnceAndStopsFirst() {
        let log = Log()
        let coordinator = BaseFlowCoordinator(services: [RecordingService("first", log: log)])
        coordinator.start()

        coordinator.addService(RecordingService("added", log: log))
        coordinator.stop()

        #expect(log.entries == ["first.start", "added.start", "added.stop", "first.stop"])
    }

    @Test func aServiceAddedBeforeStartWaitsForIt() {
        let log = Log()
        let coordinator = BaseFlowCoordinator()

        coordinator.addService(RecordingService("added", log: log))

        #expect(log.entries.isEmpty)
        coordinator.start()
        #expect(log.entries == ["added.start"])
    }

    @Test func aRemovedServiceStopsAndIsGone() {
        let log = Log()
        let removed = RecordingService("removed", log: log)
        let coordinator = BaseFlowCoordinator(services: [RecordingService("kept", log: log), removed])
        coordinator.start()

        #expect(coordinator.removeService(removed))
        #expect(!coordinator.removeService(removed), "only once")
        coordinator.stop()

        #expect(log.entries == ["kept.start", "removed.start", "removed.stop", "kept.stop"])
        #expect(coordinator.services.count == 1)
    }

    @Test func theContextFollowsTheProviderThatComesAndGoes() {
        let coordinator = BaseFlowCoordinator()
        coordinator.start()
        let session = SessionService()

        coordinator.addService(session)
        #expect(coordinator.context["user"] == "ada")
        coordinator.removeService(session)
        #expect(coordinator.context["user"] == nil)
    }
}
