import FlowKit

/// The onboarding sub-flow: its own coordinator with its own mapping, so that its two pages come and go
/// together. It completes with an ``OnboardingResult`` when the person confirms a display name; going back
/// out of the first page, or dismissing what holds it, cancels it.
///
/// Its name is the same every time (`accountOnboarding`), as restoration asks of child coordinators.
final class OnboardingFlow: BaseFlowCoordinator {
    init() {
        super.init(
            name: "accountOnboarding",
            mapping: [
                RequestRoute(.onboardingName): Exports.onboardingName,
                RequestRoute(.onboardingConfirm): Exports.onboardingConfirm,
            ])
    }
}
