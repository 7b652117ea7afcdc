import FlowKit

/// A stand-in for the auth plugin's `Session`: the context's `user`, as auth gives it, and the dependency
/// through which ``FakeSignInManager`` signs in.
final class FakeSession: ContextProviderProtocol {
    private(set) var user: String?
    private weak var coordinator: (any FlowCoordinator)?

    init(user: String?) {
        self.user = user
    }

    var context: CoordinatorContext {
        CoordinatorContext(user.map { ["user": ["id": .string($0), "name": .string($0)]] } ?? [:])
    }

    func start(with coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
        coordinator.setDependency(.fakeSession, self)
    }

    func stop() {
        coordinator = nil
    }

    func signIn(_ name: String) {
        user = name
        coordinator?.contextDidChange()
    }
}

extension TypedDependencyKey where Value == FakeSession {
    static let fakeSession = TypedDependencyKey("test.session")
}
