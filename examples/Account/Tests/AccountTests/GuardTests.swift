import FlowKit
import FlowKitTesting
import Testing

@testable import Account

/// The plugin's own guards, installed as a discovering manifest installs them: sign-in, then onboarding.
@MainActor
struct GuardTests {
    @Test func signedOutIsSentToSignInFirst() {
        let harness = AccountHarness(user: nil).harness

        #expect(harness.guardDecision(for: .showProfile) == .redirect(CoordinationRequest(.authSignIn)))
        #expect(harness.send(.showProfile).isRedirected)
        #expect(harness.top == .signInForm)
        #expect(harness.heldRequests.map(\.request.name) == [.showProfile])
    }

    @Test func signedInButNotOnboardedIsSentToTheWelcome() {
        let harness = AccountHarness().harness

        #expect(harness.send(.showProfile).isRedirected)
        #expect(harness.top == .accountWelcome)
        #expect(harness.state.modals == [[.accountWelcome]])
        #expect(harness.topModule?.content["user"] == "grace")
    }

    @Test func theOnboardingPagesPassWithinTheWelcomesFlow() throws {
        let harness = AccountHarness().harness
        harness.send(.showProfile)
        // Asked for from anywhere else, a page is guarded like every account.* request.
        #expect(harness.guardDecision(for: .onboardingName) == .redirect(CoordinationRequest(.showWelcome)))

        #expect(try harness.perform("start") == .handled(manager: Exports.onboardingName.name))
        #expect(try harness.perform("next") == .handled(manager: Exports.onboardingConfirm.name))
        #expect(harness.heldRequests.map(\.request.name) == [.showProfile])
    }

    @Test func theWelcomeAskedForDirectlyIsShownOnce() throws {
        let harness = AccountHarness().harness

        #expect(harness.send(.showWelcome) == .handled(manager: Exports.welcome.name))
        #expect(harness.state.modals == [[.accountWelcome]])
        try harness.perform("start")
        try harness.perform("next")
        try harness.perform("finish")

        #expect(harness.redirected.isEmpty)
        #expect(harness.top == nil)
    }

    @Test func signingInThenOnboardingResumesTheProfile() throws {
        let harness = AccountHarness(user: nil).harness
        harness.send(.showProfile)

        try harness.perform("submit", payload: ["user": "grace"])
        #expect(harness.top == .accountWelcome)  // resumed, and redirected by the second guard
        try harness.perform("start")
        try harness.perform("next", payload: ["displayName": "Grace Hopper"])
        try harness.perform("finish")

        #expect(harness.resumed.map(\.request.name) == [.showProfile, .showProfile])
        #expect(harness.state.modals.isEmpty)
        #expect(harness.top == .accountProfile)
        #expect(harness.topModule?.content["displayName"] == "Grace Hopper")
    }

    @Test func onboardedGoesStraightThrough() throws {
        let harness = AccountHarness().harness
        harness.send(.showProfile)
        try harness.perform("start")
        try harness.perform("next")
        try harness.perform("finish")
        try harness.perform("done")

        #expect(harness.guardDecision(for: .showProfile) == .proceed)
        #expect(harness.send(.showProfile) == .handled(manager: Exports.profile.name))
        #expect(harness.topModule?.content["displayName"] == "grace")
    }

    @Test func laterDropsTheHeldProfile() throws {
        let harness = AccountHarness().harness
        harness.send(.showProfile)

        try harness.perform("later")

        #expect(harness.dropped.map(\.request.name) == [.showProfile])
        #expect(harness.top == nil)
    }
}
