import FlowKit

/// The requests this plugin handles or sends. Other plugins know them only by these spellings.
extension CoordinationRequestName {
    /// Show the settings: this plugin's, handled by `Settings`.
    static let showSettings: Self = "settings.show"
    static let showAbout: Self = "settings.about"
    /// Sign in and sign out, which the settings ask for; handled by the auth plugin.
    static let signIn: Self = "auth.signIn"
    static let signOut: Self = "auth.signOut"
}

/// The modules this plugin presents.
extension Coordinated {
    static let settings: Self = "settings"
    static let about: Self = "about"
}

/// The dependency through which the about screen finds the analytics.
extension TypedDependencyKey where Value == AnalyticsService {
    static let analytics = TypedDependencyKey("settings.analytics")
}
