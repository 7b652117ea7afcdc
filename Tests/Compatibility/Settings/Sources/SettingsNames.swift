import FlowKit

/// The requests this plugin handles or sends besides FlowKit's own `settings.show`, `auth.signIn` and
/// `auth.signOut`.
extension CoordinationRequestName {
    static let showAbout: Self = "settings.about"
}

/// The modules this plugin presents.
extension Coordinated {
    static let settings: Self = "settings"
    static let about: Self = "about"
}

/// The dependency through which the about screen finds the analytics.
extension DependencyKey {
    static let analytics: Self = "settings.analytics"
}
