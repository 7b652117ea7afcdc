import FlowKit
import FlowKitTesting
import Testing

/// Listeners written the way FlowKit's docs show, which keep compiling and running when a later FlowKit 1.x
/// adds an event: `FlowEvent` is not frozen, so every `switch` over it outside FlowKit has a default.
@MainActor
struct EventListenerTests {
    @Test func aListenerThatActsOnAFewEventsEndsWithADefault() throws {
        let harness = FlowHarness(plugins: [])
        harness.route("screen.show", to: ScreenManager.self)
        var shown: [Coordinated] = []
        var others = 0
        for event in try run(harness) {
            switch event {
            case .presented(let module, _): shown.append(module)
            case .removed(let module): shown.removeAll { $0 == module }
            default: others += 1
            }
        }

        #expect(shown == ["first"])
        #expect(others > 0, "the handling, handled and ended events")
    }

    @Test func anExhaustiveListenerEndsWithUnknownDefault() throws {
        let harness = FlowHarness(plugins: [])
        harness.route("screen.show", to: ScreenManager.self)

        let kinds = try run(harness).map(kind)

        #expect(
            kinds == [
                "handling", "presented", "handled", "handling", "presented", "handled", "removed", "managerEnded",
            ])
    }

    @Test func theHarnessReportsEachServiceATestAddedThatHeardALifecycleEvent() {
        let harness = FlowHarness(plugins: [])
        harness.addService(HearingService())
        harness.start()

        harness.lifecycle(LifecycleEvent.foreground)

        #expect(
            harness.events.filter { $0.kind == .lifecycleDelivered } == [
                .lifecycleDelivered(.willEnterForeground, to: "HearingService"),
                .lifecycleDelivered(.didBecomeActive, to: "HearingService"),
            ])
    }

    /// Shows `first`, then `second`, then goes back.
    private func run(_ harness: FlowHarness) throws -> [FlowEvent] {
        harness.send("screen.show", payload: ["module": "first"])
        harness.send("screen.show", payload: ["module": "second"])
        try harness.back()
        return harness.events
    }

    /// Every event of FlowKit 1.0 by name; `later` for one a later 1.x added.
    private func kind(_ event: FlowEvent) -> String {
        switch event {
        case .handling: "handling"
        case .handled: "handled"
        case .unhandled: "unhandled"
        case .queued: "queued"
        case .replaying: "replaying"
        case .deadLettered: "deadLettered"
        case .failed: "failed"
        case .presented: "presented"
        case .removed: "removed"
        case .childOpened: "childOpened"
        case .childFinished: "childFinished"
        case .serviceStarted: "serviceStarted"
        case .serviceStopped: "serviceStopped"
        case .dependencySet: "dependencySet"
        case .rewritten: "rewritten"
        case .redirecting: "redirecting"
        case .held: "held"
        case .resuming: "resuming"
        case .redirectCancelled: "redirectCancelled"
        case .managerEnded: "managerEnded"
        case .managerTaskFailed: "managerTaskFailed"
        case .presentRefused: "presentRefused"
        case .serviceProblem: "serviceProblem"
        case .lifecycleDelivered: "lifecycleDelivered"
        @unknown default: "later"
        }
    }
}

// MARK: - Test Helpers

/// Presents the module named by the payload's `module`, inline.
private final class ScreenManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module(Coordinated(request.payload["module"]?.string ?? "screen")), .inline)
    }
}

/// A lifecycle service that acts on nothing it hears.
@MainActor
private final class HearingService: CoordinatorServiceLifeCycleProtocol {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}
