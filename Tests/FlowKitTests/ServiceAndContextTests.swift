import FlowKit
import Testing

@MainActor
struct ServiceAndContextTests {
    @Test func servicesStartInOrderAndStopInReverse() {
        let log = Log()
        let coordinator = BaseFlowCoordinator(services: [
            RecordingService("first", log: log), PlainService(log: log), RecordingService("last", log: log),
        ])

        coordinator.start()
        coordinator.stop()

        #expect(log.entries == ["first.start", "plain.start", "last.start", "last.stop", "plain.stop", "first.stop"])
    }

    @Test func lifecycleEventsFanOutToEveryLifecycleServiceIncludingChildren() {
        let log = Log()
        let parent = BaseFlowCoordinator(services: [RecordingService("parent", log: log), PlainService(log: log)])
        let child = BaseFlowCoordinator(name: "child", services: [RecordingService("child", log: log)])
        parent.start()
        parent.openChild(child, style: .modal)

        for event in LifecycleEvent.background { parent.send(event) }

        #expect(
            log.entries.filter { $0.contains("Background") } == [
                "parent.willEnterBackground", "child.willEnterBackground",
                "parent.didEnterBackground", "child.didEnterBackground",
            ])
    }

    @Test func eachServiceThatHeardALifecycleEventIsReportedByItsTypeInTheOrderItHeardIt() {
        let log = Log()
        let parent = BaseFlowCoordinator(services: [RecordingService("parent", log: log), PlainService(log: log)])
        // A child with a child of its own, opened before a sibling: depth first, a1 comes before b; breadth
        // first, or a reporting that runs ahead of the delivery, would not.
        let child = BaseFlowCoordinator(name: "a", services: [TerminationService()])
        let grandchild = BaseFlowCoordinator(name: "a1", services: [RecordingService("a1", log: log)])
        let sibling = BaseFlowCoordinator(name: "b", services: [SiblingService()])
        parent.start()
        parent.openChild(child, style: .modal)
        child.openChild(grandchild, style: .inline)
        parent.openChild(sibling, style: .inline)
        var events: [FlowEvent] = []
        parent.onEvent = { event in
            events.append(event)
            if case .lifecycleDelivered(_, let service) = event { log.append("reported \(service)") }
        }

        for event in LifecycleEvent.background { parent.send(event) }
        child.send(.willTerminate)

        #expect(
            events == [
                .lifecycleDelivered(.willEnterBackground, to: "RecordingService"),
                .lifecycleDelivered(.willEnterBackground, to: "TerminationService"),
                .lifecycleDelivered(.willEnterBackground, to: "RecordingService"),
                .lifecycleDelivered(.willEnterBackground, to: "SiblingService"),
                .lifecycleDelivered(.didEnterBackground, to: "RecordingService"),
                .lifecycleDelivered(.didEnterBackground, to: "TerminationService"),
                .lifecycleDelivered(.didEnterBackground, to: "RecordingService"),
                .lifecycleDelivered(.didEnterBackground, to: "SiblingService"),
                .lifecycleDelivered(.willTerminate, to: "TerminationService"),
                .lifecycleDelivered(.willTerminate, to: "RecordingService"),
            ])
        // Each service is reported after it heard the event, before the next one hears it.
        #expect(
            log.entries.filter { $0.contains("willEnterBackground") || $0.hasPrefix("reported") }.prefix(6) == [
                "parent.willEnterBackground", "reported RecordingService", "reported TerminationService",
                "a1.willEnterBackground", "reported RecordingService", "reported SiblingService",
            ])
        #expect(events.allSatisfy { $0.kind == .lifecycleDelivered })
        #expect(events.first?.description == "service RecordingService heard willEnterBackground")
    }

    @Test func stoppingTheParentStopsChildrenFirst() {
        let log = Log()
        let parent = BaseFlowCoordinator(services: [RecordingService("parent", log: log)])
        let child = BaseFlowCoordinator(name: "child", services: [RecordingService("child", log: log)])
        parent.start()
        parent.openChild(child, style: .inline)

        parent.stop()

        #expect(log.entries == ["parent.start", "child.start", "child.stop", "parent.stop"])
        #expect(!child.isRunning)
    }

    @Test func contextComesFromTheProviderService() {
        let session = SessionService()
        let coordinator = BaseFlowCoordinator(services: [PlainService(log: Log()), session])
        coordinator.start()

        #expect(coordinator.context["user"] == "ada")
    }

    @Test func childWithoutProviderUsesItsParentsContext() {
        let parent = BaseFlowCoordinator(services: [SessionService()])
        parent.start()
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .inline)

        #expect(child.context["user"] == "ada")
        #expect(BaseFlowCoordinator().context == .empty)
    }

    @Test func managersReadTheLatestContext() throws {
        let session = SessionService()
        let (coordinator, _) = BaseFlowCoordinator.withLog(
            [RequestRoute(.showDetail): route("Detail", PresentingManager.self)], services: [session])
        coordinator.requestCoordination(.showDetail, payload: ["module": "before"], from: .app)

        session.context["user"] = "grace"
        coordinator.requestCoordination(.showDetail, payload: ["module": "after"], from: "before")

        let shown = coordinator.router.modules.map { $0.content["context"]?["user"] }
        #expect(shown == ["ada", "grace"])
    }

    @Test func contextValuesAreReadByDottedPath() {
        let context = CoordinatorContext(["user": ["id": "u-42", "name": "Ada"]])

        #expect(context.value(atPath: "user.id") == "u-42")
        #expect(context.value(atPath: "user.missing") == nil)
    }
}

extension ServiceAndContextTests {
    @Test func replacedServiceHandsItsStateToTheNewOneAndProvidesTheContext() {
        let old = HandoffSession(user: "ada")
        let coordinator = BaseFlowCoordinator(services: [PlainService(log: Log()), old])
        coordinator.start()
        let new = HandoffSession(user: nil)

        #expect(coordinator.replaceService(old, with: new))

        #expect(old.stopped)
        #expect(new.started)
        #expect(coordinator.context["user"] == "ada")
        #expect(coordinator.services.last === new)
        #expect(!coordinator.replaceService(old, with: new), "old is no longer a service")
    }
}

/// A context provider that hands its user over.
@MainActor
private final class HandoffSession: ContextProviderProtocol, StateHandoff {
    var user: String?
    var started = false
    var stopped = false

    init(user: String?) { self.user = user }

    var context: CoordinatorContext { CoordinatorContext(user.map { ["user": .string($0)] } ?? [:]) }
    func start(with coordinator: any FlowCoordinator) { started = true }
    func stop() { stopped = true }
    func exportState() -> JSONValue { user.map { .string($0) } ?? .null }
    func importState(_ state: JSONValue) { user = state.string }
}

extension ServiceAndContextTests {
    @Test func requiringADependencySaysWhetherItIsMissingOrOfAnotherType() throws {
        var dependencies = DependencyValues()
        dependencies[.store] = 42

        #expect(throws: FlowError("dependency 'log' is not set; start the Log service")) {
            try dependencies.require(.log, hint: "start the Log service")
        }
        #expect(throws: FlowError("dependency 'store' is a Int, not a String; set it to the store's name")) {
            try dependencies.require(TypedDependencyKey<String>(.store), hint: "set it to the store's name")
        }
        #expect(try dependencies.require(TypedDependencyKey<Int>(.store), hint: "") == 42)
    }
}

/// A lifecycle service of a type of its own, that acts on nothing it hears.
@MainActor
private final class TerminationService: CoordinatorServiceLifeCycleProtocol {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}

/// Another lifecycle service of a type of its own, that acts on nothing it hears.
@MainActor
private final class SiblingService: CoordinatorServiceLifeCycleProtocol {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}
