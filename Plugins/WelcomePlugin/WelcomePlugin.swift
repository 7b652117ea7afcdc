import FlowKit

/// The plugin's managers and services, each named once: the description, its routes, modules and
/// service starts refer to these, so that a misspelt name is a compile error.
enum Exports {
    static let launch = ManagerFactory("Launch", LaunchManager.self)
    static let onboarding = ManagerFactory("Onboarding", OnboardingManager.self)
    static let onboardingPage = ManagerFactory("OnboardingPage", OnboardingPageManager.self)
}

/// What the welcome plugin offers: the first screens of the app, before anyone is signed in.
let description = PluginDescription(
    name: "welcome",
    version: "1.0.0",
    // The tour's pages are routed by the onboarding sub-flow itself (OnboardingCoordinator); exported so
    // that a reload finds them again: an open tour's next page is then the new generation's.
    managers: [Exports.launch, Exports.onboarding, Exports.onboardingPage],
    // What a manifest that discovers this plugin routes to it. It needs no other plugin to show: signing in
    // at the end of the tour goes to whatever handles auth.signIn.
    // The tour's pages are routed by the onboarding sub-flow's own mapping, which no manifest takes: declared
    // for graphs and `inspect`.
    routes: [
        DeclaredRoute(.launch, manager: Exports.launch),
        DeclaredRoute(.showOnboarding, manager: Exports.onboarding),
        DeclaredRoute(.onboardingPage, manager: Exports.onboardingPage, inChildFlow: .onboarding),
    ],
    // What its screens can send, for flow graphs. The onboarding manager opens the sub-flow, which asks for
    // its first page, and for sign-in when it is done.
    modules: [
        DeclaredModule(
            .welcome, presentedBy: Exports.launch,
            sends: [.action("getStarted", .showOnboarding), .action("signIn", .signIn)]),
        DeclaredModule(
            .onboarding, presentedBy: Exports.onboarding, sends: [.request(.onboardingPage), .request(.signIn)]),
        DeclaredModule(.onboardingPage, presentedBy: Exports.onboardingPage, sends: [.action("next", .onboardingPage)]),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
