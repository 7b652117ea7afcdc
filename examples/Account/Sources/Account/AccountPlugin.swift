import FlowKit

/// The plugin's managers and services, each named once, by the name manifests use: the description, its
/// routes, modules, service starts and the onboarding sub-flow's mapping refer to these, so that a misspelt
/// name is a compile error.
enum Exports {
    static let profile = ManagerFactory("Profile", ProfileManager.self)
    static let welcome = ManagerFactory("Welcome", WelcomeManager.self)
    /// The onboarding sub-flow's pages: routed by ``OnboardingFlow`` itself, exported so that a reload
    /// reaches an open sub-flow's next page.
    static let onboardingName = ManagerFactory("OnboardingName", OnboardingNameManager.self)
    static let onboardingConfirm = ManagerFactory("OnboardingConfirm", OnboardingConfirmManager.self)
    /// Provides the context key `account`, beside the auth plugin's `user` and `locked`.
    static let onboarding = ServiceFactory("Onboarding", contextKeys: ["account"]) { OnboardingService() }
}

/// What the account plugin offers: a profile reached only signed in and onboarded, the onboarding that
/// leads there, and the state that says who was onboarded.
let plugin = PluginDescription(
    name: "account",
    version: "0.1.0",
    managers: [Exports.profile, Exports.welcome, Exports.onboardingName, Exports.onboardingConfirm],
    services: [Exports.onboarding],
    // What a manifest that discovers this plugin routes to it; and, for graphs and `inspect`, what the
    // onboarding sub-flow routes in its own mapping.
    routes: [
        DeclaredRoute(.showProfile, manager: Exports.profile),
        DeclaredRoute(.showWelcome, manager: Exports.welcome),
        DeclaredRoute(.onboardingName, manager: Exports.onboardingName, inChildFlow: .accountOnboarding),
        DeclaredRoute(.onboardingConfirm, manager: Exports.onboardingConfirm, inChildFlow: .accountOnboarding),
    ],
    startServices: [ServiceStart(Exports.onboarding, after: ["auth.Session"])],
    // Signing in is the auth plugin's; its session gives the context's `user`.
    requires: ["auth": "^1.0"],
    // Every account request is for someone signed in, then onboarded. Installed in this order: sign-in
    // comes first.
    guards: [
        DeclaredGuard("accountSignedIn", requests: ["account.*"], unless: .context("user"), redirect: .authSignIn),
        DeclaredGuard(
            "accountOnboarded", requests: ["account.*"], unless: .context("account.onboarded"),
            redirect: .showWelcome),
    ],
    deepLinks: [
        DeclaredDeepLink("demo://account/profile", opens: [CoordinationRequest(.showProfile)])
    ],
    // What its screens can send, for flow graphs: the welcome and the profile open the onboarding sub-flow
    // from their actions, which then asks for its first page as `accountOnboarding`.
    modules: [
        DeclaredModule(
            .accountProfile, presentedBy: Exports.profile, sends: [.action("rename", opens: .accountOnboarding)]),
        DeclaredModule(
            .accountWelcome, presentedBy: Exports.welcome, sends: [.action("start", opens: .accountOnboarding)]),
        DeclaredModule(.accountOnboarding, sends: [.request(.onboardingName)]),
        DeclaredModule(
            .accountOnboardingName, presentedBy: Exports.onboardingName, sends: [.action("next", .onboardingConfirm)]),
        DeclaredModule(.accountOnboardingConfirm, presentedBy: Exports.onboardingConfirm),
    ]
)

/// The entry point the host looks up. `PluginEntry.export` compiles the FlowKit version into this plugin.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }
