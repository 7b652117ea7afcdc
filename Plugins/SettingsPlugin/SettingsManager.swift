import FlowKit

/// Handles `settings.show`: the settings, as the "Settings" tab when the payload's `style` is "tab", else
/// pushed inline. Shows the signed-in user's name (context `user.name`), refreshed whenever the context
/// changes.
///
/// - `signOut` asks for `auth.signOut`.
/// - `switchUser` asks for `auth.signIn` as `settings`, from a sub-flow of its own: whatever screens
///   signing in shows belong to it, and when they are gone the settings show the new user.
/// - `about` asks for `settings.about`.
final class SettingsManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let content = Self.content(context)
        func makeSettings(_ coordination: any FlowCoordinator) -> FlowModule {
            let settings = FlowModule(
                .settings, title: "Settings", content: content,
                actions: [
                    .request("signOut", .signOut, summary: "sign out"),
                    ModuleAction("switchUser", summary: "sign in as someone else") { module, payload in
                        Self.switchUser(from: module, payload: payload)
                    },
                    .request("about", .showAbout, summary: "about this app"),
                ],
                coordination: coordination)
            settings.onContextChange = { module, context in module.content = Self.content(context) }
            return settings
        }
        if request.payload["style"]?.string == "tab" {
            return presentInNewTab("Settings", coordinatorName: "settings", makeSettings)
        }
        return .present(makeSettings(coordinator), .inline)
    }

    /// The settings' content: `{"user": name}`, `null` when nobody is signed in.
    private static func content(_ context: CoordinatorContext) -> JSONValue {
        ["user": context.value(atPath: "user.name") ?? .null]
    }

    /// Asks for `auth.signIn` as `settings` from a sub-flow opened inline over `settings`; signing in changes
    /// the context, which refreshes `settings`.
    private static func switchUser(from settings: FlowModule, payload: JSONValue) -> CoordinationOutcome {
        guard let host = settings.coordination as? any FlowCoordinator else {
            return settings.requestCoordination(.signIn, payload: payload)
        }
        let flow = BaseFlowCoordinator(name: "switchUser")
        host.openChild(flow, style: .inline)
        let outcome = flow.requestCoordination(.signIn, payload: payload, from: settings.name)
        // A sub-flow that shows nothing would never be left, so it would never finish on its own. What it shows is
        // on top, where signing in put it, unless something was presented over it: only then are the screens
        // looked through (every one of them, each time, when a restored snapshot switches user thousands of times).
        if host.router.top?.coordination !== flow, !host.router.modules.contains(where: { $0.coordination === flow }) {
            flow.finish()
        }
        return outcome
    }
}
