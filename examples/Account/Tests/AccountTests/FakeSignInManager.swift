import FlowKit

extension Coordinated {
    /// The fake sign-in form, named as the auth plugin's.
    static let signInForm: Self = "signIn"
}

/// A stand-in for the auth plugin's `SignIn`: a modal form whose `submit` {"user": name} signs in and
/// closes, which ends the sign-in guard's redirect flow.
final class FakeSignInManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let session = try coordinator.dependencies.require(.fakeSession, hint: "add a FakeSession")
        let form = self.module(
            .signInForm, title: "Sign In",
            actions: [
                ModuleAction("submit", summary: #"sign in as {"user": name}"#) { [weak self] _, payload in
                    session.signIn(payload["user"]?.string ?? "ada")
                    self?.finish()
                    return nil
                }
            ])
        return .present(form, .modal)
    }
}
