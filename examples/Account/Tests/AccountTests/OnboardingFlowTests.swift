import FlowKit
import FlowKitTesting
import Testing

@testable import Account

/// The onboarding sub-flow, opened by the welcome's and the profile's actions themselves.
@MainActor
struct OnboardingFlowTests {
    @Test func welcomeOpensTheSubFlowOverItself() throws {
        let account = AccountHarness()
        account.harness.send(.showWelcome)

        let outcome = try account.harness.perform("start")

        #expect(outcome == .handled(manager: Exports.onboardingName.name))
        #expect(account.harness.state.modals == [[.accountWelcome, .accountOnboardingName]])
        #expect(account.harness.topModule?.content["suggested"] == "grace")
    }

    @Test func finishingCompletesWithTheTypedResult() throws {
        let account = AccountHarness()
        account.harness.send(.showWelcome)
        try account.harness.perform("start")
        try account.harness.perform("next", payload: ["displayName": "Grace Hopper"])
        #expect(account.harness.topModule?.content["displayName"] == "Grace Hopper")

        try account.harness.perform("finish")

        let finished = account.harness.events.map(\.description).filter { $0.hasPrefix("child accountOnboarding") }
        #expect(finished == [#"child accountOnboarding finished: completed {"displayName":"Grace Hopper"}"#])
        #expect(account.onboarding.displayName == "Grace Hopper")
        #expect(account.harness.top == nil)  // the welcome closed itself
    }

    @Test func anEmptyNameIsRefused() throws {
        let account = AccountHarness(user: "")
        account.harness.send(.showWelcome)
        try account.harness.perform("start")

        let outcome = try account.harness.perform("next", payload: ["displayName": "  "])

        guard case .failed(let error) = outcome else {
            Issue.record("expected a failed outcome, got \(outcome)")
            return
        }
        #expect("\(error)".contains("must not be empty"))
        #expect(account.harness.top == .accountOnboardingName)
    }

    @Test func backingOutCancelsAndKeepsTheName() throws {
        let account = AccountHarness(displayName: "Grace")
        account.harness.send(.showProfile)
        try account.harness.perform("rename")
        #expect(account.harness.state.stack == [.accountProfile, .accountOnboardingName])

        try account.harness.back()

        #expect(account.harness.events.contains { $0.description == "child accountOnboarding finished: cancelled" })
        #expect(account.harness.state.stack == [.accountProfile])
        #expect(account.onboarding.displayName == "Grace")
    }

    @Test func renamingRefreshesTheProfileInPlace() throws {
        let account = AccountHarness(displayName: "Grace")
        account.harness.send(.showProfile)
        #expect(account.harness.topModule?.content == ["user": "grace", "displayName": "Grace"])

        try account.harness.perform("rename")
        try account.harness.perform("next", payload: ["displayName": "Amazing Grace"])
        try account.harness.perform("finish")

        #expect(account.harness.state.stack == [.accountProfile])
        #expect(account.harness.topModule?.content == ["user": "grace", "displayName": "Amazing Grace"])
    }
}
