import FlowKit

/// The onboarding sub-flow: its own coordinator, so that its pages come and go together. It completes
/// when the person reaches the end (`done`); going back out of the tour cancels it.
final class OnboardingCoordinator: BaseFlowCoordinator {
    /// How many pages the tour has.
    static let pageCount = 3

    init() {
        super.init(
            name: "onboarding",
            mapping: [
                RequestRoute(.onboardingPage): Exports.onboardingPage
            ])
    }
}
