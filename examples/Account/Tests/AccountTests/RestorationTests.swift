import FlowKit
import FlowKitTesting
import Testing

@testable import Account

/// Saved and restored into a new harness set up the same way: its services take their saved state first.
@MainActor
struct RestorationTests {
    @Test func theProfileComesBackWithTheOnboardedName() throws {
        let saved = AccountHarness(displayName: "Grace Hopper")
        saved.harness.send(.showProfile)
        let snapshot = saved.harness.snapshot()

        let next = AccountHarness()  // not onboarded, until the state is imported
        let report = try next.harness.restore(snapshot)

        #expect(report.isComplete, "\(report)")
        #expect(next.harness.state == saved.harness.state)
        #expect(next.onboarding.displayName == "Grace Hopper")
        #expect(next.harness.topModule?.content["displayName"] == "Grace Hopper")
    }

    @Test func anOnboardingOpenedByAnActionComesBackAndStillCompletes() throws {
        let saved = AccountHarness(displayName: "Grace")
        saved.harness.send(.showProfile)
        try saved.harness.perform("rename")
        try saved.harness.perform("next", payload: ["displayName": "Grace Hopper"])
        let snapshot = saved.harness.snapshot()

        let next = AccountHarness()
        let report = try next.harness.restore(snapshot)

        #expect(report.isComplete, "\(report)")
        #expect(next.harness.state.stack == [.accountProfile, .accountOnboardingName, .accountOnboardingConfirm])
        try next.harness.perform("finish")  // the restored flow's result still reaches the profile
        #expect(next.harness.state.stack == [.accountProfile])
        #expect(next.onboarding.displayName == "Grace Hopper")
        #expect(next.harness.topModule?.content["displayName"] == "Grace Hopper")
    }
}
