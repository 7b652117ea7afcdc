import FlowKit

/// What the settings plugin offers: the settings tab, the about screen and usage analytics.
let description = PluginDescription(
    name: "settings",
    version: AboutManager.appVersion,
    managers: [
        ManagerFactory("Settings", SettingsManager.self),
        ManagerFactory("About", AboutManager.self),
        ManagerFactory("Nickname", NicknameManager.self),
        ManagerFactory("NicknameShown", NicknameShownManager.self),
        ManagerFactory("Events", EventsManager.self),
    ],
    services: [
        ServiceFactory("Analytics") { AnalyticsService() }
    ],
    // What a manifest that discovers this plugin routes to it, and starts. Analytics counts lifecycle events
    // from the start, but needs nothing of the session, so it only starts after it when both run.
    routes: [
        DeclaredRoute(.settingsShow, manager: "Settings"),
        DeclaredRoute(.showAbout, manager: "About"),
    ],
    startServices: [ServiceStart("Analytics", after: ["auth.Session"])],
    // Switching user asks auth for auth.signIn from the settings screen.
    requires: ["auth": ">=1.0 <2"],
    // What its screens can send, for flow graphs.
    modules: [
        DeclaredModule(
            .settings, presentedBy: "Settings",
            sends: [.action("signOut", .authSignOut), .action("switchUser", .authSignIn), .action("about", .showAbout)]),
        DeclaredModule(.about, presentedBy: "About"),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
