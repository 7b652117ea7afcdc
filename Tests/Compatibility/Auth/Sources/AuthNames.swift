import FlowKit

/// The requests this plugin sends besides FlowKit's own `launch`, `auth.signIn` and `auth.signOut`.
extension CoordinationRequestName {
    /// Show the signed-in home (tabs); handled by the catalog plugin.
    static let showHome: Self = "home.show"
}

/// The modules this plugin presents.
extension Coordinated {
    static let signIn: Self = "signIn"
    static let reauthenticate: Self = "reauthenticate"
}

/// The dependency through which this plugin's managers find the session.
extension DependencyKey {
    static let session: Self = "auth.session"
}
