import FlowKit
import Testing

// MARK: - Test Helpers shared by the guard and redirect tests

extension CoordinationRequestName {
    static let signIn: Self = "auth.signIn"
    static let catalogList: Self = "catalog.list"
    static let consent: Self = "consent.show"
    static let quickSignIn: Self = "auth.quick"
    static let slowSignIn: Self = "auth.slow"
    static let childSignIn: Self = "auth.flow"
}

extension DependencyKey {
    /// The test's ``MutableSession``, through which the fake sign-in managers sign people in.
    static let session: Self = "session"
}

extension TypedDependencyKey where Value == MutableSession {
    static let session = TypedDependencyKey(.session)
}

/// Provides a context with `user` while someone is signed in and `consent` once given.
@MainActor
final class MutableSession: ContextProviderProtocol {
    var user: String?
    var consent = false

    var context: CoordinatorContext {
        var values: [String: JSONValue] = [:]
        if let user { values["user"] = .string(user) }
        if consent { values["consent"] = true }
        return CoordinatorContext(values)
    }

    func start(with coordinator: any FlowCoordinator) { coordinator.setDependency(.session, self) }
    func stop() {}
}

extension FlowManager {
    var session: MutableSession? { coordinator.dependencies[.session] }
}

/// A modal sign-in form: `submit` signs "ada" in and closes it, `submitAndGoHome` then presents `home` as
/// the root; `cancel` closes it.
@MainActor
final class FakeSignInManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let form = self.module(
            "signIn",
            actions: [
                ModuleAction("submit") { _, _ in
                    self.session?.user = "ada"
                    self.finish()
                    return nil
                },
                // As the demo's sign-in does: close the form, then replace everything with home.
                ModuleAction("submitAndGoHome") { _, _ in
                    self.session?.user = "ada"
                    let coordinator = self.coordinator
                    self.finish()
                    return coordinator.requestCoordination(
                        .showList, payload: ["module": "home", "style": "root"], from: "signIn")
                },
                ModuleAction("cancel") { _, _ in
                    self.finish()
                    return nil
                },
            ])
        return .present(form, .modal)
    }
}

/// A modal consent form: `accept` records consent and closes it.
@MainActor
final class FakeConsentManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let form = self.module(
            "consent",
            actions: [
                ModuleAction("accept") { _, _ in
                    self.session?.consent = true
                    self.finish()
                    return nil
                }
            ])
        return .present(form, .modal)
    }
}

/// Opens a sign-in child flow, modally, with one form: `submit` signs "ada" in and finishes the child.
@MainActor
final class ChildFlowSignInManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(name: "signInFlow")
        coordinator.openChild(flow, style: .modal)
        let form = FlowModule(
            "signInForm",
            actions: [
                ModuleAction("submit") { _, _ in
                    self.session?.user = "ada"
                    flow.finish(with: .completed(.null))
                    return nil
                }
            ], coordination: flow)
        flow.present(form, style: .inline, by: self)
        return .finished
    }
}

/// Signs "ada" in at once and presents nothing.
@MainActor
final class InstantSignInManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        session?.user = "ada"
        return .finished
    }
}

/// Works in the background; the test signs in and finishes it.
@MainActor
final class SlowSignInManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        log?.managers.append(Weak(self as FlowManager))
        return .working
    }
}

extension RedirectGuard {
    /// `catalog.*` unless someone is signed in: redirect to `auth.signIn`.
    static func signedIn(redirect: CoordinationRequestName = .signIn) -> RedirectGuard {
        RedirectGuard(
            name: "signedIn", requests: [try! RequestPattern("catalog.*")], unless: .context("user"),
            redirect: CoordinationRequest(redirect))
    }
}

/// A started root coordinator with the fake sign-in routes, a session, a log and every event recorded.
@MainActor
final class GuardedApp {
    let coordinator: BaseFlowCoordinator
    let session = MutableSession()
    let log: Log
    private(set) var events: [FlowEvent] = []

    init(guards: [any RequestGuard] = [RedirectGuard.signedIn()]) {
        let mapping: RequestCoordinatorMappingDictionary = [
            RequestRoute(.signIn): route("SignIn", FakeSignInManager.self),
            RequestRoute(.quickSignIn): route("QuickSignIn", InstantSignInManager.self),
            RequestRoute(.slowSignIn): route("SlowSignIn", SlowSignInManager.self),
            RequestRoute(.consent): route("Consent", FakeConsentManager.self),
            RequestRoute(.childSignIn): route("ChildSignIn", ChildFlowSignInManager.self),
            RequestRoute("catalog.stored"): route("Store", StoreManager.self),
            RequestRoute(.catalogList): route("List", PresentingManager.self),
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute(.showDetail): route("Detail", PresentingManager.self),
        ]
        (coordinator, log) = BaseFlowCoordinator.withLog(mapping, services: [session])
        coordinator.guards = guards
        coordinator.onEvent = { [weak self] in self?.events.append($0) }
    }

    /// Triggers `action` on the visible module, as a person would.
    func perform(_ action: String) throws {
        let top = try #require(coordinator.router.top)
        try top.perform(action)
    }

    /// The events that say what became of held requests, as text.
    var redirectEvents: [String] {
        events.compactMap { event in
            switch event {
            case .redirecting, .held, .resuming, .redirectCancelled, .rewritten: event.description
            default: nil
            }
        }
    }
}
