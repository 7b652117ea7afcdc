import FlowKit

/// The requests this plugin handles or sends. Other plugins and manifests know them only by these spellings.
extension CoordinationRequestName {
    /// Show the account's profile: the onboarded display name. Guarded: sign-in, then onboarding, first.
    static let showProfile: Self = "account.profile"
    /// Welcome a person who has not been onboarded yet; the onboarding guard redirects here.
    static let showWelcome: Self = "account.welcome"
    /// The onboarding sub-flow's first page: choose a display name. Routed only inside the sub-flow.
    ///
    /// Under `account.*` like the rest: the guards let the onboarding redirect's own flow through, this
    /// sub-flow included when the welcome opened it.
    static let onboardingName: Self = "account.onboarding.name"
    /// The onboarding sub-flow's last page: confirm the display name. Routed only inside the sub-flow.
    static let onboardingConfirm: Self = "account.onboarding.confirm"
    /// Sign in: the auth plugin's request, which the sign-in guard redirects to.
    static let authSignIn: Self = "auth.signIn"
}

/// The modules this plugin presents, and the names it sends requests as.
extension Coordinated {
    static let accountProfile: Self = "accountProfile"
    static let accountWelcome: Self = "accountWelcome"
    static let accountOnboardingName: Self = "accountOnboardingName"
    static let accountOnboardingConfirm: Self = "accountOnboardingConfirm"
    /// The onboarding sub-flow as a whole, when it asks for its first page.
    static let accountOnboarding: Self = "accountOnboarding"
}

/// The dependency through which this plugin's managers find the onboarding state.
extension TypedDependencyKey where Value == OnboardingService {
    static let onboarding = TypedDependencyKey("account.onboarding")
}
