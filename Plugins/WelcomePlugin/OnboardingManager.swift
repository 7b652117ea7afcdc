import FlowKit

/// Handles `onboarding.show`: opens the onboarding sub-flow inline and, once the person is done with it,
/// asks for `auth.signIn` as the `onboarding` module.
///
/// The manager keeps working while the sub-flow is open; the sub-flow's `onFinish` tells it when the
/// sub-flow finished. Going back out of the first page finishes the sub-flow too, without signing in.
final class OnboardingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = OnboardingCoordinator()
        coordinator.openChild(
            flow, style: .inline,
            onFinish: { [weak self, weak flow] in
                self?.flowFinished(completed: flow?.isComplete ?? false)
            })
        let outcome = flow.requestCoordination(.onboardingPage, payload: ["page": 1], from: .onboarding)
        guard outcome.isHandled else {
            flow.finish()
            throw FlowError("could not show the first onboarding page: \(outcome)")
        }
        return .working
    }

    private func flowFinished(completed: Bool) {
        if completed { coordinator.requestCoordination(.signIn, from: .onboarding) }
        finish()
    }
}
