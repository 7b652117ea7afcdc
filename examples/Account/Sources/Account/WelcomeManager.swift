import FlowKit

/// Handles `account.welcome`, where the onboarding guard sends a person who has not been onboarded: a modal
/// welcome. `start` opens the onboarding sub-flow over it, from the action itself; when the sub-flow
/// completes, the chosen name is recorded and the welcome closes, which ends the guard's redirect flow, so
/// the held request (`account.profile`) is resumed. `later` closes the welcome without onboarding: the held
/// request is dropped.
///
/// Asked for on its own, it is the same welcome, holding nothing: the onboarding guard lets its own redirect
/// through.
final class WelcomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let onboarding = try onboardingService()
        let userName = context.value(atPath: "user.name")?.string
        let welcome = self.module(
            .accountWelcome, title: "Welcome to your account",
            content: ["user": userName.map(JSONValue.string) ?? .null],
            actions: [
                ModuleAction("start", summary: "choose a display name") { [weak self] _, _ in
                    guard let self else { return nil }
                    return self.openOnboarding(suggesting: userName) { [weak self] result in
                        guard let result else { return }  // cancelled: the welcome stays
                        onboarding.complete(result)
                        self?.finish()
                    }
                },
                ModuleAction("later", summary: "close without onboarding") { [weak self] _, _ in
                    self?.finish()
                    return nil
                },
            ])
        return .present(welcome, .modal)
    }
}
