import FlowKit
import Testing

@testable import FlowManifest

/// The manifest's `guards`: request patterns redirected unless a condition holds, and every way to get
/// them wrong.
struct ManifestGuardTests {
    private let base = ManifestTests()
    private let routes = #"""
        [{"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"},
         {"request": "catalog.list", "plugin": "welcome", "manager": "List"},
         {"request": "catalog.detail", "plugin": "welcome", "manager": "Detail"}]
        """#

    private func manifest(guards: String) -> String {
        base.manifest(routes: routes, extra: #", "guards": "# + guards)
    }

    @Test func guardsParseIntoRedirectGuardsInOrder() throws {
        let text = manifest(
            guards: #"""
                [{"name": "signedIn", "requests": ["catalog.*"], "unless": {"context": "user"}, "redirect": "auth.signIn"},
                 {"requests": ["catalog.detail", "*"], "unless": "catalog.store",
                  "redirect": {"request": "auth.signIn", "payload": {"reason": "store"}}},
                 {"requests": ["catalog.list"], "unless": {"dependency": "auth.session"}, "redirect": "auth.signIn"}]
                """#)

        let guards = try Manifest.parse(text, path: ManifestTests.file).guards

        #expect(
            guards == [
                RedirectGuard(
                    name: "signedIn", requests: [try RequestPattern("catalog.*")], unless: .context("user"),
                    redirect: CoordinationRequest("auth.signIn")),
                RedirectGuard(
                    name: "guards[1]", requests: [try RequestPattern("catalog.detail"), try RequestPattern("*")],
                    unless: .dependency("catalog.store"),
                    redirect: CoordinationRequest("auth.signIn", payload: ["reason": "store"])),
                RedirectGuard(
                    name: "guards[2]", requests: [try RequestPattern("catalog.list")],
                    unless: .dependency("auth.session"), redirect: CoordinationRequest("auth.signIn")),
            ])
    }

    @Test func aManifestWithoutGuardsHasNone() throws {
        #expect(try Manifest.parse(base.manifest(routes: routes), path: ManifestTests.file).guards.isEmpty)
    }

    @Test func everyBadGuardIsReportedWithItsPath() {
        let text = manifest(
            guards: #"""
                [{"requests": ["cat*"], "unless": {"context": "user"}, "redirect": "auth.signIn"},
                 {"requests": [], "unless": {"context": "user", "dependency": "x"}, "redirect": "auth.sigIn"},
                 {"requests": ["catlog.*"], "unless": {}, "redirect": "catalog.list"},
                 {"request": ["catalog.*"], "unless": {"contxt": "user"}, "redirect": "nowhere"},
                 {"requests": "catalog.*", "unless": 3, "redirect": "auth.signIn", "name": ""}]
                """#)

        #expect(
            base.errors(in: text) == [
                "\(ManifestTests.file): guards[0].requests[0]: request pattern 'cat*': '*' must be the whole last segment, as in 'catalog.*', or the whole pattern",
                "\(ManifestTests.file): guards[1].requests: a guard needs at least one request pattern, such as \"catalog.*\"",
                "\(ManifestTests.file): guards[1].unless: a condition needs exactly one of \"context\" or \"dependency\", found both",
                "\(ManifestTests.file): guards[1].redirect: no route handles \"auth.sigIn\"; did you mean \"auth.signIn\"?",
                "\(ManifestTests.file): guards[2].requests[0]: \"catlog.*\" matches no routed request; did you mean \"catalog.*\"?",
                "\(ManifestTests.file): guards[2].unless: a condition needs exactly one of \"context\" or \"dependency\", found neither",
                "\(ManifestTests.file): guards[3]: unknown key \"request\"; did you mean \"requests\"?",
                "\(ManifestTests.file): guards[3].unless: unknown key \"contxt\"; did you mean \"context\"?",
                "\(ManifestTests.file): guards[3].redirect: no route handles \"nowhere\"; a redirect must be a request the routes handle",
                "\(ManifestTests.file): guards[4].name: guard name must not be empty; omit \"name\" to call it guards[4]",
                "\(ManifestTests.file): guards[4].requests: expected array, found string",
                "\(ManifestTests.file): guards[4].unless: expected string or object, found number",
            ])
        #expect(
            base.kinds(in: manifest(guards: #"[{"requests": ["a*"], "unless": "k", "redirect": "auth.signIn"}]"#)) == [
                .badGuard
            ])
    }

    @Test func aPatternForRequestsNoRouteNamesIsAcceptedUnlessItLooksLikeATypo() throws {
        // Plugins route requests of their own inside child coordinators, which the manifest cannot list.
        let text = manifest(
            guards: #"[{"requests": ["checkout.*"], "unless": {"context": "user"}, "redirect": "auth.signIn"}]"#)

        #expect(try Manifest.parse(text, path: ManifestTests.file).guards.count == 1)
    }
}
