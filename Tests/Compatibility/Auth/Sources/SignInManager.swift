import FlowKit

/// Handles `auth.signIn`: a modal sign-in form. `submit` {"user": name} signs in, closes the form and asks
/// for `home.show` as the `signIn` module; `cancel` just closes it.
final class SignInManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let session = try session()
        let form = self.module(
            .signIn, title: "Sign In",
            content: ["prompt": "Sign in to keep your list on every device.", "user": "ada"],
            actions: [
                ModuleAction("submit", summary: #"sign in as {"user": name}, "ada" by default"#) { _, payload in
                    // Taken before finishing: the coordinator may be a sub-flow that ends with the form.
                    let app = self.appCoordinator
                    session.signIn(name: payload.userName)
                    self.finish()
                    return app.requestCoordination(.showHome, from: .signIn)
                },
                ModuleAction("cancel", summary: "close without signing in") { _, _ in
                    self.finish()
                    return nil
                },
            ])
        return .present(form, .modal)
    }
}
