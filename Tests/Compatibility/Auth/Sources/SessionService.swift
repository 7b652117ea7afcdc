import FlowKit

/// Who is signed in, published as the app's context.
///
/// The context is `{"user": {"id": ..., "name": ...}}` while someone is signed in and `{}` otherwise, plus
/// `"locked": true` while the app is in the background. The service registers itself as the dependency
/// `auth.session` so that the plugin's managers can sign people in and out, and announces every change of
/// the context, so that screens showing it refresh.
final class SessionService: ContextProviderProtocol, CoordinatorServiceLifeCycleProtocol {
    /// A signed-in person.
    struct User: Sendable, Hashable {
        var id: String
        var name: String
    }

    /// The signed-in person, if any.
    private(set) var user: User?
    /// Whether the app is in the background, where what it shows must not be readable.
    private(set) var isLocked = false
    /// The coordinator the service was started with, told when the context changes.
    private weak var coordinator: (any FlowCoordinator)?

    var context: CoordinatorContext {
        var values: [String: JSONValue] = [:]
        if let user { values["user"] = ["id": .string(user.id), "name": .string(user.name)] }
        if isLocked { values["locked"] = true }
        return CoordinatorContext(values)
    }

    func start(with coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
        coordinator.setDependency(.session, self)
    }

    func stop() {}

    /// Signs `name` in, replacing whoever was signed in.
    func signIn(name: String) {
        user = User(id: name.lowercased(), name: name)
        coordinator?.contextDidChange()
    }

    /// Signs the current person out.
    func signOut() {
        user = nil
        coordinator?.contextDidChange()
    }

    func didEnterBackground() {
        isLocked = true
        coordinator?.contextDidChange()
    }

    func willEnterForeground() {
        isLocked = false
        coordinator?.contextDidChange()
    }
}

/// The signed-in person survives a reload of the auth plugin.
extension SessionService: StateHandoff {
    func exportState() -> JSONValue {
        var state: [String: JSONValue] = ["locked": .bool(isLocked)]
        if let user { state["user"] = ["id": .string(user.id), "name": .string(user.name)] }
        return .object(state)
    }

    func importState(_ state: JSONValue) {
        if let id = state["user"]?["id"]?.string, let name = state["user"]?["name"]?.string {
            user = User(id: id, name: name)
        }
        isLocked = state["locked"]?.bool ?? false
    }
}
