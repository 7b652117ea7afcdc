import FlowKit

/// The requests this plugin handles or sends. Other plugins know them only by these spellings.
extension CoordinationRequestName {
    /// The app's first request: this plugin's, handled by `Launch`.
    static let launch: Self = "launch"
    /// Sign in, asked for from the welcome screen and after the tour; handled by the auth plugin.
    static let signIn: Self = "auth.signIn"
    /// Show the signed-in home (tabs); handled by the catalog plugin.
    static let showHome: Self = "home.show"
    /// Walk a new user through the onboarding pages.
    static let showOnboarding: Self = "onboarding.show"
    /// Show one onboarding page; routed only inside the onboarding sub-flow.
    static let onboardingPage: Self = "onboarding.page"
}

/// The modules this plugin presents, and the names it sends requests as.
extension Coordinated {
    static let welcome: Self = "welcome"
    static let onboardingPage: Self = "onboardingPage"
    /// The onboarding sub-flow as a whole, when it asks for what comes after it.
    static let onboarding: Self = "onboarding"
}
