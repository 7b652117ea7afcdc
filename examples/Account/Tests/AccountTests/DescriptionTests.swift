import FlowKit
import FlowKitTesting
import Testing

@testable import Account

/// What the plugin declares for a manifest that discovers it: no manifest has to copy any of it.
@MainActor
struct DescriptionTests {
    @Test func declaresRoutesGuardsDeepLinkAndRequirement() {
        #expect(plugin.name == "account")
        #expect(plugin.routes.filter { $0.childFlow == nil }.map(\.request) == [.showProfile, .showWelcome])
        #expect(
            plugin.routes.filter { $0.childFlow == .accountOnboarding }.map(\.request) == [
                .onboardingName, .onboardingConfirm,
            ], "the sub-flow's own routes, declared for graphs")
        #expect(plugin.requires == ["auth": "^1.0"])
        #expect(plugin.guards.map(\.name) == ["accountSignedIn", "accountOnboarded"])
        #expect(plugin.guards.map(\.requests) == [["account.*"], ["account.*"]])
        #expect(plugin.guards.map(\.redirect.name) == [.authSignIn, .showWelcome])
        #expect(plugin.deepLinks.map(\.pattern) == ["demo://account/profile"])
    }

    @Test func contextKeysStayClearOfTheSession() throws {
        let onboarding = try #require(plugin.services.first { $0.name == "Onboarding" })
        #expect(onboarding.contextKeys == ["account"])
        #expect(Set(onboarding.contextKeys).isDisjoint(with: ["user", "locked"]))  // auth.Session's keys
        #expect(Set(OnboardingService().context.values.keys) == ["account"])
    }

    @Test func everyRequestHasThePluginPrefix() throws {
        let own = try RequestPattern("account.*")
        let names: [CoordinationRequestName] = [.showProfile, .showWelcome, .onboardingName, .onboardingConfirm]
        #expect(names.allSatisfy(own.matches))
    }
}
