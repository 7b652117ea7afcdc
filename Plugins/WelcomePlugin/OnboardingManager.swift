import FlowKit

/// Handles `onboarding.show`: opens the onboarding sub-flow inline and, once the person is done with it,
/// asks for `auth.signIn` as the `onboarding` module.
///
/// The manager keeps working while the sub-flow is open; the sub-flow's result tells it how the tour
/// ended. Going back out of the first page cancels the sub-flow, and nobody is asked to sign in.
final class OnboardingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = OnboardingCoordinator()
        coordinator.openChild(flow, style: .inline, onResult: { [weak self] in self?.flowFinished($0) })
        let outcome = flow.requestCoordination(.onboardingPage, payload: ["page": 1], from: .onboarding)
        guard outcome.isHandled else {
            flow.finish(with: .failed(FlowError("could not show the first onboarding page: \(outcome)")))
            throw FlowError("could not show the first onboarding page: \(outcome)")
        }
        return .working
    }

    private func flowFinished(_ result: FlowResult) {
        if result.isCompleted { coordinator.requestCoordination(.signIn, from: .onboarding) }
        finish()
    }
}
