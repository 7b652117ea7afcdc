import FlowKit

/// Handles `auth.signOut`: ends the session and relaunches the app, which shows the welcome screen as the
/// new root. Other plugins' state (the catalog's store) is theirs to keep or drop.
final class SignOutManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        try session().signOut()
        let outcome = appCoordinator.requestCoordination(.appLaunch, from: .app)
        if case .failed(let error) = outcome { throw error }
        return .finished
    }
}
