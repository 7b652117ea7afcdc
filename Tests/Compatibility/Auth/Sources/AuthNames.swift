import FlowKit

/// The requests this plugin sends and handles. A fixture names them itself, rather than use FlowKit's
/// `launch`, `signIn` and `signOut`, so that it builds against every FlowKit 1.x, with or without those.
extension CoordinationRequestName {
    /// The app's first request, which signing out asks for again.
    static let appLaunch: Self = "launch"
    /// Sign in (handled here).
    static let authSignIn: Self = "auth.signIn"
    /// Sign out (handled here).
    static let authSignOut: Self = "auth.signOut"
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
