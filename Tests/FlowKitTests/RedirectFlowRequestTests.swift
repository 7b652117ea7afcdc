import FlowKit
import Testing

/// A guard lets through what belongs to the flow it redirected to: its redirect itself, asked for directly,
/// and the requests the flow makes (from its screens, and from the child flows they open), which the guard's
/// pattern may match too. Held, they would wait for the flow they are part of, forever.
@MainActor
struct RedirectFlowRequestTests {
    @Test func aChildFlowTheRedirectsScreenOpenedAsksThroughTheGuardAndTheHeldRequestResumes() throws {
        let app = AccountApp()
        app.coordinator.requestCoordination(CoordinationRequest(.profile), from: .app)
        try app.perform("start")
        let pageShown = app.coordinator.router.top?.name
        try app.perform("done")

        #expect(pageShown == "page", "account.page passed the guard that redirected account.profile")
        #expect(app.coordinator.router.state.stack == ["profile"], "account.profile resumed")
        #expect(app.coordinator.heldRequests.isEmpty)
    }

    @Test func aRequestFromAnotherPlaceStillWaitsForTheFlowUnderWay() throws {
        let app = AccountApp()
        app.coordinator.requestCoordination(CoordinationRequest(.profile), from: .app)
        try app.perform("start")

        let outcome = app.coordinator.requestCoordination(CoordinationRequest(.settings), from: .app)

        guard case .redirected(let held) = outcome else {
            Issue.record("account.settings from app was not held: \(outcome)")
            return
        }
        #expect(held.request.name == .settings)
        #expect(app.coordinator.router.state.stack == ["welcome", "page"], "no second welcome")
    }

    @Test func theRedirectAskedForDirectlyIsShownOnceAndHoldsNothing() throws {
        let app = AccountApp()

        let outcome = app.coordinator.requestCoordination(CoordinationRequest(.welcome), from: .app)
        try app.perform("start")
        try app.perform("done")

        #expect(outcome.isHandled)
        #expect(app.coordinator.heldRequests.isEmpty)
        #expect(app.coordinator.router.state.stack.isEmpty, "welcome went, and did not come back")
    }
}

extension CoordinationRequestName {
    fileprivate static let welcome: Self = "account.welcome"
    fileprivate static let page: Self = "account.page"
    fileprivate static let profile: Self = "account.profile"
    fileprivate static let settings: Self = "account.settings"
}

/// `account.*` waits until someone is onboarded (context `user`): the guard shows `welcome`, whose `start`
/// opens an onboarding flow itself that asks for `account.page`; the page's `done` onboards "ada".
@MainActor
private final class AccountApp {
    let coordinator: BaseFlowCoordinator
    let session = MutableSession()

    init() {
        coordinator = BaseFlowCoordinator(
            name: "app",
            mapping: [
                RequestRoute(.welcome): route("Welcome", AccountWelcomeManager.self),
                RequestRoute(.profile): route("Profile", NamedScreenManager.self),
                RequestRoute(.settings): route("Settings", NamedScreenManager.self),
            ],
            services: [session])
        coordinator.guards = [
            RedirectGuard(
                name: "onboarded", requests: [try! RequestPattern("account.*")], unless: .context("user"),
                redirect: CoordinationRequest(.welcome))
        ]
        coordinator.start()
    }

    /// Triggers `action` on the visible module, as a person would.
    func perform(_ action: String) throws {
        try #require(coordinator.router.top).perform(action)
    }
}

/// Shows `welcome`: `start` opens the onboarding flow inline, itself, and asks it for `account.page`. The
/// flow's result signs its value in, and welcome goes.
@MainActor
private final class AccountWelcomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let welcome = self.module(
            "welcome",
            actions: [
                ModuleAction("start") { [unowned self] _, _ in
                    let flow = BaseFlowCoordinator(
                        name: "onboarding", mapping: [RequestRoute(.page): route("Page", DonePageManager.self)])
                    coordinator.openChild(flow, style: .inline) { [weak self] result in
                        guard let self, case .completed(let name) = result else { return }
                        session?.user = name.string
                        coordinator.contextDidChange()
                        finish()
                    }
                    return flow.requestCoordination(CoordinationRequest(.page), from: "welcome")
                }
            ])
        return .present(welcome, .inline)
    }
}

/// `page`, whose `done` finishes its flow with "ada".
@MainActor
private final class DonePageManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let page = self.module(
            "page",
            actions: [
                ModuleAction("done") { [unowned self] _, _ in
                    coordinator.finish(with: .completed("ada"))
                    return nil
                }
            ])
        return .present(page, .inline)
    }
}

/// Presents a module named after the request's last part: `account.profile` shows `profile`.
@MainActor
private final class NamedScreenManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let name = request.name.rawValue.split(separator: ".").last.map(String.init) ?? "screen"
        return .present(self.module(Coordinated(name)), .inline)
    }
}
