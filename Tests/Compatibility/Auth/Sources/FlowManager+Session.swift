import FlowKit

extension FlowManager {
    /// The session service, found through the `auth.session` dependency it sets when it starts.
    ///
    /// - Throws: ``FlowError`` when the manifest does not start the `Session` service.
    func session() throws(FlowError) -> SessionService {
        try coordinator.dependencies.require(
            .session, as: SessionService.self,
            hint: #"start the service with {"plugin": "auth", "service": "Session"}"#)
    }

    /// The root of the coordinator tree, where app-wide screens (welcome, home) belong.
    ///
    /// Sign-in and sign-out may be asked for from a tab or a sub-flow; what they lead to replaces the
    /// whole presentation, so they ask the root rather than their own coordinator.
    var appCoordinator: any FlowCoordinator {
        var root: any FlowCoordinator = coordinator
        while let parent = root.parent { root = parent }
        return root
    }
}

extension JSONValue {
    /// The `user` member of an action's payload: who signs in. Defaults to "ada", the demo user.
    var userName: String {
        guard let name = self["user"]?.string, !name.isEmpty else { return "ada" }
        return name
    }
}
