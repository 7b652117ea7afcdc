import FlowKit

/// Handles `account.onboarding.name` {"suggested": name} inside the onboarding sub-flow: the first page,
/// where the person picks a display name. `next` {"displayName": name} (the suggestion by default) asks for
/// the confirm page.
final class OnboardingNameManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let suggested = request.payload["suggested"]?.string
        let page = self.module(
            .accountOnboardingName, title: "Choose a display name",
            content: ["step": 1, "of": 2, "suggested": suggested.map(JSONValue.string) ?? .null],
            actions: [
                ModuleAction("next", summary: #"go on with {"displayName": name}, the suggestion by default"#) {
                    module, payload in
                    let name = payload["displayName"]?.string ?? suggested ?? ""
                    guard !name.allSatisfy(\.isWhitespace) else {
                        return .failed(FlowError("a display name must not be empty: give {\"displayName\": \"...\"}"))
                    }
                    return module.requestCoordination(.onboardingConfirm, DisplayNameChoice(displayName: name))
                }
            ])
        return .present(page, .inline)
    }
}
