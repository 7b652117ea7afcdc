import FlowKit

/// The plugin's managers and services, each named once: the description, its routes, modules and
/// service starts refer to these, so that a misspelt name is a compile error.
enum Exports {
    static let signIn = ManagerFactory("SignIn", SignInManager.self)
    static let reauthenticate = ManagerFactory("Reauthenticate", ReauthenticateManager.self)
    static let signOut = ManagerFactory("SignOut", SignOutManager.self)
    static let session = ServiceFactory("Session", contextKeys: ["user", "locked"]) { SessionService() }
}

/// What the auth plugin offers: the session (the app's context) and the screens that change it.
let description = PluginDescription(
    name: "auth",
    version: "1.0.0",
    managers: [Exports.signIn, Exports.reauthenticate, Exports.signOut],
    services: [Exports.session],
    // What a manifest that discovers this plugin routes to it, and starts.
    routes: [
        DeclaredRoute(.signIn, manager: Exports.signIn),
        DeclaredRoute(.signIn, from: "settings", manager: Exports.reauthenticate),
        DeclaredRoute(.signOut, manager: Exports.signOut),
    ],
    startServices: [ServiceStart(Exports.session)],
    // What its screens can send, for flow graphs: signing in goes home; switching user sends nothing.
    modules: [
        DeclaredModule(.signIn, presentedBy: Exports.signIn, sends: [.action("submit", .showHome)]),
        DeclaredModule(.reauthenticate, presentedBy: Exports.reauthenticate),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
