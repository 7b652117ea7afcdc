import FlowKit

/// Handles `launch`: the signed-in home when the context has a user, otherwise the welcome screen.
///
/// The welcome screen is presented as `.root`, so a launch after signing out clears the tabs and modals of
/// the previous session.
final class LaunchManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        if context["user"] != nil, coordinator.requestCoordination(.showHome, from: module).isHandled {
            return .finished
        }
        let welcome = self.module(
            .welcome, title: "Welcome",
            content: [
                "headline": "Pack light, find everything.",
                "body": "Keep track of your gear: what you own, where it is, what you still need.",
            ],
            actions: [
                .request("getStarted", .showOnboarding, summary: "take the tour, then sign in"),
                .request("signIn", .signIn, summary: "sign in with an existing account"),
            ])
        return .present(welcome, .root)
    }
}
