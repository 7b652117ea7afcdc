import FlowKit

extension FlowManager {
    /// Opens the onboarding sub-flow inline over this manager's screens, straight from a module action, and
    /// shows its first page, suggesting `suggestedName`.
    ///
    /// `onResult` hears the typed result once: the chosen name, or `nil` when the flow was cancelled.
    /// Returns the outcome of the first page's request, for the action to return.
    func openOnboarding(
        suggesting suggestedName: String?,
        onResult: @escaping @MainActor (OnboardingResult?) -> Void
    ) -> CoordinationOutcome {
        let flow = OnboardingFlow()
        coordinator.openChild(flow, style: .inline, onResult: { result in onResult(OnboardingResult(result)) })
        let outcome = flow.requestCoordination(
            .onboardingName, payload: ["suggested": suggestedName.map(JSONValue.string) ?? .null],
            from: .accountOnboarding)
        if !outcome.isHandled {
            flow.finish(with: .failed(FlowError("could not show the first onboarding page: \(outcome)")))
        }
        return outcome
    }
}
