import FlowKit

/// The requests this plugin handles or sends. Other plugins know them only by these spellings.
extension CoordinationRequestName {
    /// Sign a person in: this plugin's, handled by `SignIn` (or `Reauthenticate` where the manifest says).
    static let signIn: Self = "auth.signIn"
    /// Sign the current person out: this plugin's, handled by `SignOut`.
    static let signOut: Self = "auth.signOut"
    /// The app's first request, which signing out asks for again; handled by the welcome plugin.
    static let launch: Self = "launch"
    /// Show the signed-in home (tabs); handled by the catalog plugin.
    static let showHome: Self = "home.show"
}

/// The modules this plugin presents.
extension Coordinated {
    static let signIn: Self = "signIn"
    static let reauthenticate: Self = "reauthenticate"
}

/// The dependency through which this plugin's managers find the session.
extension TypedDependencyKey where Value == SessionService {
    static let session = TypedDependencyKey("auth.session")
}
