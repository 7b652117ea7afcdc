import FlowKit

/// The plugin's managers and services, each named once: the description, its routes, modules and
/// service starts refer to these, so that a misspelt name is a compile error.
enum Exports {
    static let settings = ManagerFactory("Settings", SettingsManager.self)
    static let about = ManagerFactory("About", AboutManager.self)
    static let analytics = ServiceFactory("Analytics") { AnalyticsService() }
}

/// What the settings plugin offers: the settings tab, the about screen and usage analytics.
let description = PluginDescription(
    name: "settings",
    version: AboutManager.appVersion,
    managers: [Exports.settings, Exports.about],
    services: [Exports.analytics],
    // What a manifest that discovers this plugin routes to it, and starts. Analytics counts lifecycle events
    // from the start, but needs nothing of the session, so it only starts after it when both run.
    routes: [
        DeclaredRoute(.showSettings, manager: Exports.settings),
        DeclaredRoute(.showAbout, manager: Exports.about),
    ],
    startServices: [ServiceStart(Exports.analytics, after: ["auth.Session"])],
    // Switching user asks auth for auth.signIn from the settings screen.
    requires: ["auth": ">=1.0 <2"],
    // What its screens can send, for flow graphs.
    modules: [
        DeclaredModule(
            .settings, presentedBy: Exports.settings,
            sends: [.action("signOut", .signOut), .action("switchUser", .signIn), .action("about", .showAbout)]),
        DeclaredModule(.about, presentedBy: Exports.about),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
