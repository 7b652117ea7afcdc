import FlowKit

/// Handles `account.onboarding.confirm` {"displayName": name} inside the onboarding sub-flow: the last
/// page. `finish` completes the sub-flow with the ``OnboardingResult``, which removes both pages at once;
/// `back` (the shell's) returns to the first page.
final class OnboardingConfirmManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let choice = try request.decode(.onboardingConfirm)
        let page = self.module(
            .accountOnboardingConfirm, title: "Confirm your display name",
            content: ["step": 2, "of": 2, "displayName": .string(choice.displayName)],
            actions: [
                ModuleAction("finish", summary: "finish onboarding with this name") { [weak self] _, _ in
                    // This manager's coordinator is the sub-flow: finishing it ends the flow with its result.
                    guard let self else { return nil }
                    do {
                        self.coordinator.finish(
                            with: try .completed(encoding: OnboardingResult(displayName: choice.displayName)))
                    } catch {
                        self.coordinator.finish(with: .failed(error))
                    }
                    return nil
                }
            ])
        return .present(page, .inline)
    }
}
