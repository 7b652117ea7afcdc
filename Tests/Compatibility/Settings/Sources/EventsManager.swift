import FlowKit

/// Handles `settings.events`: a child flow, pushed inline, with an event listener of its own, written as a
/// listener was written for FlowKit 1.0. A compatibility fixture: it switches over `FlowEvent`, which grows
/// in 1.x, naming every event 1.0 had and ending with `@unknown default`, where an event added later lands.
///
/// The flow shows `eventLog`, whose content is what the listener heard: `heard`, the events 1.0 knew, and
/// `later`, the description of each event it did not know. Its screen's `ping` asks for `events.ping`, which
/// the flow handles; a lifecycle event reaches its ``Beacon``; `close` completes the flow.
final class EventsManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let log = EventLog()
        let flow = BaseFlowCoordinator(
            name: "events",
            mapping: [
                RequestRoute(.eventLog): ManagerFactory("EventLog", EventLogManager.self),
                RequestRoute(.eventPing): ManagerFactory("EventPing", EventPingManager.self),
            ],
            services: [Beacon()])
        flow.setDependency(.eventLog, log)
        flow.onEvent = { event in log.hear(event) }
        coordinator.openChild(flow, style: .inline, onResult: { [weak self] in self?.finish(with: $0) })
        let outcome = flow.requestCoordination(.eventLog, from: .settings)
        guard outcome.isHandled else {
            flow.finish(with: .failed(FlowError("could not show the event log: \(outcome)")))
            throw FlowError("could not show the event log: \(outcome)")
        }
        return .working
    }
}

/// What the events flow's listener heard, shown by the `eventLog` screen while it is on screen.
@MainActor
final class EventLog {
    /// The events FlowKit 1.0 knew, each as its case's name and what it was about.
    private(set) var heard: [String] = []
    /// The events added after 1.0, by their description: the listener's `@unknown default`.
    private(set) var later: [String] = []
    /// The screen that shows the log.
    weak var screen: FlowModule?

    /// The log as the screen shows it: `{"heard": [...], "later": [...]}`.
    var content: JSONValue {
        ["heard": .array(heard.map { .string($0) }), "later": .array(later.map { .string($0) })]
    }

    /// Records `event`: every case FlowKit 1.0 had, then the default for those added since.
    func hear(_ event: FlowEvent) {
        switch event {
        case .handling(let request, _, _, _): heard.append("handling \(request.name.rawValue)")
        case .handled(let request, _, _, _): heard.append("handled \(request.name.rawValue)")
        case .unhandled(let request, _): heard.append("unhandled \(request.name.rawValue)")
        case .queued(let request, _, _): heard.append("queued \(request.name.rawValue)")
        case .replaying(let request, _): heard.append("replaying \(request.name.rawValue)")
        case .deadLettered(let letter): heard.append("deadLettered \(letter.request.name.rawValue)")
        case .failed(let request, _, _): heard.append("failed \(request.name.rawValue)")
        case .presented(let module, _): heard.append("presented \(module.rawValue)")
        case .removed(let module): heard.append("removed \(module.rawValue)")
        case .childOpened(let name, _): heard.append("childOpened \(name)")
        case .childFinished(let name, _): heard.append("childFinished \(name)")
        case .serviceStarted: heard.append("serviceStarted")
        case .serviceStopped: heard.append("serviceStopped")
        case .dependencySet(let key): heard.append("dependencySet \(key.rawValue)")
        case .rewritten(let request, _, _, _): heard.append("rewritten \(request.name.rawValue)")
        case .redirecting(let held): heard.append("redirecting \(held.request.name.rawValue)")
        case .held(let held): heard.append("held \(held.request.name.rawValue)")
        case .resuming(let held): heard.append("resuming \(held.request.name.rawValue)")
        case .redirectCancelled(let held, _): heard.append("redirectCancelled \(held.request.name.rawValue)")
        case .managerEnded(let name, _): heard.append("managerEnded \(name)")
        case .managerTaskFailed(let name, _): heard.append("managerTaskFailed \(name)")
        case .presentRefused(let module, _): heard.append("presentRefused \(module.rawValue)")
        case .serviceProblem: heard.append("serviceProblem")
        @unknown default: later.append(event.description)
        }
        screen?.content = content
    }
}

/// Shows the event log, in the events flow: `ping` asks for `events.ping`, `close` completes the flow.
final class EventLogManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let log = coordinator.dependencies[.eventLog]
        let screen = self.module(
            .eventLog, title: "Events", content: log?.content ?? .null,
            actions: [
                .request("ping", .eventPing, summary: "ask the flow for events.ping"),
                ModuleAction("close", summary: "complete the flow") { module, _ in
                    (module.coordination as? any FlowCoordinator)?.finish(with: .completed(.null))
                    return nil
                },
            ])
        log?.screen = screen
        return .present(screen, .inline)
    }
}

/// Handles `events.ping` in the events flow, showing nothing.
final class EventPingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .finished
    }
}

/// A lifecycle service of the events flow: it does nothing, but a lifecycle event reaches it.
final class Beacon: CoordinatorServiceLifeCycleProtocol {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}
