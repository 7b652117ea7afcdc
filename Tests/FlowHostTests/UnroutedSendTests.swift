import FlowKit
import Testing

@testable import FlowShell

/// `validate` notes a request a plugin's module sends that no route handles and that is near no routed one
/// (a near one is ``RequestTypo``'s warning), since at run time the action that sends it fails with
/// `no route handles`; the manifest stays valid.
struct UnroutedSendTests {
    /// Runs `flowhost validate` on `manifest`, written to a directory of the test's own, with the bundled
    /// plugins on the search path; as text, then with `--json`.
    private func validate(_ manifest: String) throws -> (path: String, text: Subprocess, json: JSONValue) {
        let directory = try TemporaryDirectory()
        let path = try directory.file("greet.json", containing: manifest)
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let text = try Subprocess.flowhost(
            ["validate", path, "--plugin-path", BuildProducts.directory], environment: environment)
        let json = try Subprocess.flowhost(
            ["validate", path, "--json", "--plugin-path", BuildProducts.directory], environment: environment)
        #expect(json.status == 0)
        return (path, text, try JSONValue(parsing: json.standardOutput))
    }

    @Test func aListingManifestThatDoesNotRouteWhatSignInSendsGetsANote() throws {
        // The welcome plugin's onboarding module sends onboarding.page, which its child flow routes: handled.
        let (path, text, json) = try validate(
            """
            {"manifestVersion": 1, "plugins": {"auth": "libAuthPlugin.so", "welcome": "libWelcomePlugin.so"},
             "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                        {"request": "onboarding.show", "plugin": "welcome", "manager": "Onboarding"},
                        {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"}],
             "start": ["launch"]}
            """)

        #expect(text.status == 0)
        #expect(
            text.errorLines.filter { !$0.contains("is listed in plugins, not discovered") } == [
                #"\#(path): note: plugin 'auth' module 'signIn' sends 'home.show' (action 'submit'), which no route handles; route it, or that action fails with "no route handles home.show""#
            ])
        #expect(text.outputLines.first?.hasPrefix("\(path): ok") == true)
        let notes = json["warnings"]?.array?.filter { $0["kind"] == "unroutedRequest" } ?? []
        #expect(
            notes == [
                [
                    "kind": "unroutedRequest", "plugin": "auth", "module": "signIn", "request": "home.show",
                    "action": "submit",
                    "message":
                        #"plugin 'auth' module 'signIn' sends 'home.show' (action 'submit'), which no route handles; route it, or that action fails with "no route handles home.show""#,
                ]
            ])
    }

    @Test func aDiscoveringManifestGetsTheNoteForWhatItsComposedRoutesLeaveOut() throws {
        let (path, text, json) = try validate(
            """
            {"manifestVersion": 1,
             "discover": [{"searchPath": true, "libraries": ["libWelcomePlugin.so", "libAuthPlugin.so"]}],
             "start": ["launch"]}
            """)

        #expect(text.status == 0)
        #expect(
            text.errorLines == [
                #"\#(path): note: plugin 'auth' module 'signIn' sends 'home.show' (action 'submit'), which no route handles; route it, or that action fails with "no route handles home.show""#
            ])
        #expect(json["warnings"]?.array?.map { $0["kind"] } == ["unroutedRequest"])
    }

    /// A route the manifest excludes is one it means to leave out: the note says so rather than tell it to route
    /// the request (found by a trial: `exclude.routes` for `onboarding.show` got "route it").
    @Test func aSendWhoseDeclaredRouteIsExcludedSaysSoRatherThanRouteIt() throws {
        let (path, text, _) = try validate(
            """
            {"manifestVersion": 1,
             "discover": [{"searchPath": true, "libraries": ["libWelcomePlugin.so", "libAuthPlugin.so"]}],
             "exclude": {"routes": [{"request": "onboarding.show"}]},
             "start": ["launch"]}
            """)

        #expect(text.status == 0)
        #expect(
            text.errorLines.contains(
                #"\#(path): note: plugin 'welcome' module 'welcome' sends 'onboarding.show' (action 'getStarted'), which no route handles; its declared route is set aside (excluded by exclude.routes[0]), so that action fails with "no route handles onboarding.show""#
            ), "\(text.errorLines)")
    }

    @Test func aSendNearAMistypedRouteGetsTheTypoWarningAndNoNote() throws {
        // welcome's getStarted sends onboarding.show, which welcome declares a route for: not in effect in a
        // manifest that lists it and routes it not, so a note, where RequestTypo takes it as routed.
        let (path, text, json) = try validate(
            """
            {"manifestVersion": 1, "plugins": {"auth": "libAuthPlugin.so", "welcome": "libWelcomePlugin.so"},
             "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                        {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"},
                        {"request": "home.shwo", "plugin": "auth", "manager": "SignOut"}]}
            """)

        #expect(text.status == 0)
        #expect(
            text.errorLines.filter { !$0.contains("is listed in plugins, not discovered") } == [
                "\(path): warning: routes[2].request: no plugin declares or sends 'home.shwo'; did you mean 'home.show'?",
                #"\#(path): note: plugin 'welcome' module 'welcome' sends 'onboarding.show' (action 'getStarted'), which no route handles; route it, or that action fails with "no route handles onboarding.show""#,
            ])
        #expect(
            json["warnings"]?.array?.filter { $0["kind"] == "unroutedRequest" }.map { $0["request"] } == [
                "onboarding.show"
            ])
    }
}
