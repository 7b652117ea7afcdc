import Testing

@testable import FlowKit

/// The context of a coordinator with several provider services, as when plugins each start one: every
/// provider contributes its own keys, and guards and managers read the merge.
@MainActor
struct ComposedContextTests {
    final class Provider: ContextProviderProtocol {
        var context: CoordinatorContext
        init(_ values: [String: JSONValue]) { context = CoordinatorContext(values) }
        func start(with coordinator: any FlowCoordinator) {}
        func stop() {}
    }

    @Test func eachProviderContributesItsKeysAndTheFirstStartedKeepsAKeyBothProvide() {
        let session = Provider(["user": "ada", "plan": "free"])
        let onboarding = Provider(["onboarding": ["done": false], "plan": "pro"])
        let coordinator = BaseFlowCoordinator(services: [session, onboarding])
        coordinator.start()

        #expect(
            coordinator.context == CoordinatorContext(["user": "ada", "plan": "free", "onboarding": ["done": false]]))

        onboarding.context["onboarding"] = ["done": true]
        #expect(coordinator.context.value(atPath: "onboarding.done") == true, "the latest of each, each time")
    }

    @Test func aGuardOnTheSecondProvidersKeySeesItAndSaysWhoProvides() throws {
        let onboarding = Provider(["onboarding": ["done": false]])
        let coordinator = BaseFlowCoordinator(
            mapping: [
                RequestRoute("account.profile"): ManagerFactory("Profile", RequestPathShow.self),
                RequestRoute("onboarding.show"): ManagerFactory("Onboarding", RequestPathShow.self),
            ],
            services: [Provider(["user": "ada"]), onboarding])
        coordinator.addGuard(
            RedirectGuard(
                name: "onboarded", requests: [try RequestPattern("account.*")], unless: .context("onboarding.done"),
                redirect: CoordinationRequest("onboarding.show")))
        coordinator.start()
        #expect(
            coordinator.unmet(GuardCondition.context("onboarding.done"))
                == "context onboarding.done is false (Provider and Provider provide the context)")
        guard case .redirected = coordinator.requestCoordination("account.profile", from: .app) else {
            Issue.record("not redirected while onboarding is not done")
            return
        }

        onboarding.context["onboarding"] = ["done": true]

        #expect(coordinator.requestCoordination("account.profile", from: .app) == .handled(manager: "Profile"))
    }

    final class RequestPathShow: FlowManager {
        override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
            .present(FlowModule(Coordinated(request.name.rawValue), coordination: coordinator), .inline)
        }
    }
}
