import FlowKit
import FlowKitTesting
import Testing

@testable import Account

/// A harness set up as a manifest that discovers the plugin would be: its routes, its guards in their
/// order, a session (the context's `user`) beside the `Onboarding` service, and a fake sign-in.
@MainActor
struct AccountHarness {
    let harness: FlowHarness
    let session: FakeSession
    let onboarding: OnboardingService

    init(user: String? = "grace", displayName: String? = nil) {
        harness = FlowHarness(plugin: plugin)
        harness.route(.showProfile, to: Exports.profile)
        harness.route(.showWelcome, to: Exports.welcome)
        harness.route(.authSignIn, to: FakeSignInManager.self)
        harness.addDeclaredGuards()
        session = FakeSession(user: user)
        onboarding = OnboardingService()
        if let displayName { onboarding.importState(["displayName": .string(displayName)]) }
        harness.addService(session)
        harness.addService(onboarding)
    }
}
