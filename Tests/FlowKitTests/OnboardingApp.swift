import FlowKit
import Testing

// MARK: - Test Helpers shared by the action-step restoration and redirect-flow tests

extension CoordinationRequestName {
    static let accountWelcome: Self = "account.welcome"
    static let accountPage: Self = "account.page"
    static let accountBanner: Self = "account.banner"
    static let accountProfile: Self = "account.profile"
    static let accountSettings: Self = "account.settings"
}

/// A restorable app whose `account.*` requests wait until someone is onboarded (context `user`): the guard
/// shows `welcome`, whose `start` action opens the `onboarding` flow itself (pages `next` to the second,
/// `done` onboards "ada"). The other `account.*` requests present the module their payload names.
@MainActor
final class OnboardingApp {
    let coordinator: BaseFlowCoordinator
    let session = MutableSession()

    init() {
        coordinator = BaseFlowCoordinator(
            name: "app",
            mapping: [
                RequestRoute(.accountWelcome): route("Welcome", OnboardingWelcomeManager.self),
                RequestRoute(.accountBanner): route("Banner", PresentingManager.self),
                RequestRoute(.accountProfile): route("Profile", PresentingManager.self),
                RequestRoute(.accountSettings): route("Settings", PresentingManager.self),
            ],
            services: [session])
        coordinator.guards = [
            RedirectGuard(
                name: "onboarded", requests: [try! RequestPattern("account.*")], unless: .context("user"),
                redirect: CoordinationRequest(.accountWelcome))
        ]
        coordinator.isRestorable = true
        coordinator.start()
    }

    /// Welcome, its action opening the flow, and the flow's second page.
    func walkToSecondPage() throws {
        coordinator.requestCoordination(CoordinationRequest(.accountWelcome), from: .app)
        try perform("start")
        try perform("next")
    }

    /// Triggers `action` on the visible module, as a person would.
    func perform(_ action: String) throws {
        try #require(coordinator.router.top).perform(action)
    }
}

/// Shows `welcome`: `start` opens the onboarding flow inline, itself, and asks it for its first page;
/// `startWithBanner` first asks for a banner. The flow's result signs its value in, and welcome goes.
@MainActor
private final class OnboardingWelcomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let welcome = self.module(
            "welcome",
            actions: [
                ModuleAction("start") { [unowned self] _, _ in openFlow() },
                ModuleAction("startWithBanner") { [unowned self] module, _ in
                    module.requestCoordination(.accountBanner, payload: ["module": "banner"])
                    return openFlow()
                },
            ])
        return .present(welcome, .inline)
    }

    private func openFlow() -> CoordinationOutcome {
        let flow = BaseFlowCoordinator(
            name: "onboarding", mapping: [RequestRoute(.accountPage): route("Page", OnboardingPageManager.self)])
        coordinator.openChild(flow, style: .inline) { [weak self] result in
            guard let self, case .completed(let name) = result else { return }
            session?.user = name.string
            coordinator.contextDidChange()
            finish()
        }
        return flow.requestCoordination(CoordinationRequest(.accountPage, payload: ["page": 1]), from: "welcome")
    }
}

/// Page `n` of the onboarding flow: `next` asks for page `n + 1`; `done` finishes the flow with "ada".
@MainActor
private final class OnboardingPageManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let number = request.payload["page"]?.int ?? 1
        let page = self.module(
            Coordinated("page\(number)"),
            actions: [
                .request("next", .accountPage, payload: ["page": .number(Double(number + 1))]),
                ModuleAction("done") { [unowned self] _, _ in
                    coordinator.finish(with: .completed("ada"))
                    return nil
                },
            ])
        return .present(page, .inline)
    }
}
