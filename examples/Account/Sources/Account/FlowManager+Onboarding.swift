import FlowKit

extension FlowManager {
    /// The onboarding service, found through the `account.onboarding` dependency it sets when it starts.
    ///
    /// - Throws: ``FlowError`` when no one started the `Onboarding` service.
    func onboardingService() throws(FlowError) -> OnboardingService {
        try coordinator.dependencies.require(
            .onboarding,
            hint: #"start the service with {"plugin": "account", "service": "Onboarding"}"#)
    }
}
