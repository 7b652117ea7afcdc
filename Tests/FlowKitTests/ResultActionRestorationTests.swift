import FlowKit
import Testing

/// A module's action that asks for a request with `onResult`, whose manager presents a form and finishes with
/// what is typed there: restoring the request alone brought the form back with no one to hear its result,
/// while the report said the screen was as saved. The action is the step instead, so that restoring performs
/// it again and the form's result reaches the screen that asked, as it did before the save.
@MainActor
struct ResultActionRestorationTests {
    @Test func theFormsResultReachesTheScreenThatAskedAfterARestore() throws {
        let saving = RelayApp()
        try saving.ask("favourite colour?")
        let saved = try FlowSnapshot(json: saving.coordinator.snapshot().json)

        let restoring = RelayApp()
        let report = try restoring.coordinator.restore(saved)
        try #require(restoring.coordinator.router.top).perform("reply", payload: ["text": "teal"])

        #expect(
            saved.steps.map(\.description) == [
                "relay.show from app in the root coordinator",
                #"action ask {"question":"favourite colour?"} of relay in the root coordinator"#,
            ])
        #expect(report.summary == "restored 2 of 2 steps; the screen is as saved")
        #expect(restoring.coordinator.router.top?.name == "relay")
        #expect(restoring.coordinator.router.top?.content["answer"] == "teal", "the result reached the relay")
    }

    /// A manager that gives its result at once presents nothing: its request stays no step (the action, which
    /// would add the item again, is not replayed for it), and what the action shows next is its own step.
    @Test func aResultGivenAtOnceLeavesTheActionsRequestsTheSteps() throws {
        let app = RelayApp()
        app.coordinator.requestCoordination(CoordinationRequest("relay.show"), from: .app)
        try #require(app.coordinator.router.top).perform("addAndShow")

        let steps = app.coordinator.snapshot().steps

        #expect(steps.map(\.action) == [nil, nil])
        #expect(steps.last?.request == CoordinationRequest("relay.show", payload: ["answer": "added"]))
        #expect(app.added == 1)
    }
}

/// `relay.show` presents `relay`, whose `ask` action asks for `relay.ask` with `onResult` and shows the
/// answer; `relay.ask` presents a modal form whose `reply` finishes with the text. `addAndShow` asks for
/// `relay.add`, which gives its result at once, then shows a new relay with it.
@MainActor
private final class RelayApp {
    let coordinator: BaseFlowCoordinator
    /// How many times `relay.add` ran.
    let additions = Additions()
    var added: Int { additions.count }

    init() {
        coordinator = BaseFlowCoordinator(
            name: "app",
            mapping: [
                RequestRoute("relay.show"): ManagerFactory("Relay", RelayManager.self),
                RequestRoute("relay.ask"): ManagerFactory("Ask", AskManager.self),
                RequestRoute("relay.add"): ManagerFactory("Add", AddManager.self),
            ])
        coordinator.isRestorable = true
        coordinator.setDependency(additionsKey, additions)
        coordinator.start()
    }

    /// Shows the relay and asks `question`: the form is on top.
    func ask(_ question: String) throws {
        coordinator.requestCoordination(CoordinationRequest("relay.show"), from: .app)
        try #require(coordinator.router.top).perform("ask", payload: ["question": .string(question)])
        try #require(coordinator.router.top?.name == "ask")
    }
}

/// What `relay.add` counts its runs in.
@MainActor
private final class Additions {
    var count = 0
}

private let additionsKey = TypedDependencyKey<Additions>("additions")

private final class RelayManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let relay = self.module(
            "relay", content: ["answer": request.payload["answer"] ?? .null],
            actions: [
                ModuleAction("ask") { [unowned self] module, payload in
                    coordinator.requestCoordination(
                        CoordinationRequest("relay.ask", payload: payload), from: module.name
                    ) { [weak module] result in
                        if case .completed(let value) = result { module?.content = ["answer": value["text"] ?? .null] }
                    }
                },
                ModuleAction("addAndShow") { [unowned self] module, _ in
                    var answer: JSONValue = .null
                    coordinator.requestCoordination(CoordinationRequest("relay.add"), from: module.name) {
                        if case .completed(let value) = $0 { answer = value }
                    }
                    return coordinator.requestCoordination(
                        CoordinationRequest("relay.show", payload: ["answer": answer]), from: module.name)
                },
            ])
        return .present(relay, .inline)
    }
}

private final class AskManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let form = self.module(
            "ask", content: request.payload,
            actions: [
                ModuleAction("reply") { [unowned self] _, payload in
                    finish(with: .completed(["text": payload["text"] ?? .null]))
                    return nil
                }
            ])
        return .present(form, .modal)
    }
}

private final class AddManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        coordinator.dependencies[additionsKey]?.count += 1
        finish(with: .completed("added"))
        return .finished
    }
}
