import FlowKit

/// Handles `auth.signIn` where the manifest routes it here, typically from `settings`: an inline form to
/// switch user without leaving the screen that asked. `submit` {"user": name} signs in as `name` and pops
/// the form; `cancel` pops it.
final class ReauthenticateManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let session = try session()
        let form = self.module(
            .reauthenticate, title: "Switch User",
            content: ["currentUser": session.user.map { .string($0.name) } ?? .null],
            actions: [
                ModuleAction("submit", summary: #"switch to {"user": name}, "ada" by default"#) { _, payload in
                    session.signIn(name: payload.userName)
                    self.finish()
                    return nil
                },
                ModuleAction("cancel", summary: "keep the current user") { _, _ in
                    self.finish()
                    return nil
                },
            ])
        return .present(form, .inline)
    }
}
