import FlowKit

/// The onboarding sub-flow: its own coordinator, so that its pages come and go together.
///
/// It remembers whether the person reached the end, so that the manager that opened it can tell
/// "done" from going back out of the tour.
final class OnboardingCoordinator: BaseFlowCoordinator {
    /// How many pages the tour has.
    static let pageCount = 3

    /// Whether the person finished the tour with `done`.
    private(set) var isComplete = false

    init() {
        super.init(
            name: "onboarding",
            mapping: [
                RequestRoute(.onboardingPage): ManagerFactory("OnboardingPage", OnboardingPageManager.self)
            ])
    }

    /// Ends the tour as completed: its pages go away and the parent regains the focus.
    func complete() {
        isComplete = true
        finish()
    }
}
