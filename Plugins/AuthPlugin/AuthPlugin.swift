import FlowKit

/// What the auth plugin offers: the session (the app's context) and the screens that change it.
let description = PluginDescription(
    name: "auth",
    version: "1.0.0",
    managers: [
        ManagerFactory("SignIn", SignInManager.self),
        ManagerFactory("Reauthenticate", ReauthenticateManager.self),
        ManagerFactory("SignOut", SignOutManager.self),
    ],
    services: [
        ServiceFactory("Session", contextKeys: ["user", "locked"]) { SessionService() }
    ],
    // What a manifest that discovers this plugin routes to it, and starts.
    routes: [
        DeclaredRoute(.signIn, manager: "SignIn"),
        DeclaredRoute(.signIn, from: "settings", manager: "Reauthenticate"),
        DeclaredRoute(.signOut, manager: "SignOut"),
    ],
    startServices: [ServiceStart("Session")],
    // What its screens can send, for flow graphs: signing in goes home; switching user sends nothing.
    modules: [
        DeclaredModule(.signIn, presentedBy: "SignIn", sends: [.action("submit", .showHome)]),
        DeclaredModule(.reauthenticate, presentedBy: "Reauthenticate"),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
