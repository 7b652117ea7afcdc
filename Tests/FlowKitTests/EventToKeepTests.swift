import FlowKit
import Testing

/// `onEventToKeep` hands each event over where `onEvent` lends it: the same events, in the same order;
/// an event's `kind` and `manager` say what it is without a `switch` that copies it.
@MainActor
struct EventToKeepTests {
    private let mapping: RequestCoordinatorMappingDictionary = [
        RequestRoute(.showList): route("List", PresentingManager.self)
    ]

    @Test func aListenerThatKeepsEventsHearsWhatOneThatIsLentThemHears() throws {
        let (lent, _) = BaseFlowCoordinator.withLog(mapping)
        let (kept, _) = BaseFlowCoordinator.withLog(mapping)
        var lentEvents: [FlowEvent] = []
        var keptEvents: [FlowEvent] = []
        lent.onEvent = { lentEvents.append($0) }
        kept.onEventToKeep = { (event: consuming FlowEvent) in keptEvents.append(event) }

        for coordinator in [lent, kept] {
            coordinator.requestCoordination(CoordinationRequest(.showList), from: .app)
            coordinator.requestCoordination(CoordinationRequest(.showList, payload: ["module": "second"]), from: .app)
            coordinator.requestCoordination(CoordinationRequest("nowhere"), from: .app)
            try coordinator.back()
        }

        #expect(keptEvents == lentEvents)
        #expect(keptEvents.count > 4, "\(keptEvents)")
        #expect(kept.onEvent != nil, "either one is the listener")
    }

    @Test func settingOneListenerReplacesTheOther() {
        let (coordinator, _) = BaseFlowCoordinator.withLog(mapping)
        var lent = 0
        var kept = 0
        coordinator.onEvent = { _ in lent += 1 }
        coordinator.onEventToKeep = { _ in kept += 1 }

        coordinator.requestCoordination(CoordinationRequest(.showList), from: .app)

        #expect(lent == 0 && kept > 0)
    }

    @Test func anEventsKindAndManagerSayWhatItIs() {
        let request = CoordinationRequest(.showList)
        let handled = FlowEvent.handled(request, from: .app, manager: "List", coordinator: "root")

        #expect(handled.kind == .handled && handled.manager == "List")
        #expect(FlowEvent.unhandled(request, from: .app).kind == .unhandled)
        #expect(FlowEvent.unhandled(request, from: .app).manager == nil)
        #expect(FlowEvent.serviceStarted("Store").kind == .serviceStarted)
        #expect(FlowEvent.removed("list").kind == .removed)
    }
}
