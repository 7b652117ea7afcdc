import FlowKit

/// What the welcome plugin offers: the first screens of the app, before anyone is signed in.
let description = PluginDescription(
    name: "welcome",
    version: "1.0.0",
    managers: [
        ManagerFactory("Launch", LaunchManager.self),
        ManagerFactory("Onboarding", OnboardingManager.self),
        // The tour's pages, which the onboarding sub-flow routes itself. Exported so that a reload finds
        // them again: an open tour's next page is then the new generation's.
        ManagerFactory("OnboardingPage", OnboardingPageManager.self),
    ],
    // What a manifest that discovers this plugin routes to it. It needs no other plugin to show: signing in
    // at the end of the tour goes to whatever handles auth.signIn.
    routes: [
        DeclaredRoute(.launch, manager: "Launch"),
        DeclaredRoute(.showOnboarding, manager: "Onboarding"),
    ],
    // What its screens can send, for flow graphs. The tour's pages are presented by the onboarding
    // sub-flow's own route, which no manifest routes; the sub-flow asks for sign-in when it is done.
    modules: [
        DeclaredModule(
            .welcome, presentedBy: "Launch",
            sends: [.action("getStarted", .showOnboarding), .action("signIn", .signIn)]),
        DeclaredModule(.onboardingPage, sends: [.action("next", .onboardingPage)]),
        DeclaredModule(.onboarding, sends: [.request(.signIn)]),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
