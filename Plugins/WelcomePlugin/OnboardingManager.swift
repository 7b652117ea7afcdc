import FlowKit

/// Handles `onboarding.show`: opens the onboarding sub-flow inline and, once the person is done with it,
/// asks for `auth.signIn` as the `onboarding` module.
///
/// The manager keeps working while the sub-flow is open; the parent's focus handler tells it when the
/// sub-flow finished. Going back out of the first page finishes the sub-flow too, without signing in.
final class OnboardingManager: FlowManager {
    /// The open sub-flow; kept so that the manager can tell it apart from other children of its coordinator.
    private var flow: OnboardingCoordinator?

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let parent = coordinator as? BaseFlowCoordinator else {
            throw FlowError("onboarding needs a BaseFlowCoordinator to open its pages in, not '\(coordinator.name)'")
        }
        let flow = OnboardingCoordinator()
        self.flow = flow
        parent.whenFinished(flow) { [weak self] in self?.flowFinished() }
        parent.openChild(flow, style: .inline)
        let outcome = flow.requestCoordination(.onboardingPage, payload: ["page": 1], from: .onboarding)
        guard outcome.isHandled else {
            flow.finish()
            throw FlowError("could not show the first onboarding page: \(outcome)")
        }
        return .working
    }

    private func flowFinished() {
        let completed = flow?.isComplete ?? false
        flow = nil
        if completed { coordinator.requestCoordination(.signIn, from: .onboarding) }
        finish()
    }
}
