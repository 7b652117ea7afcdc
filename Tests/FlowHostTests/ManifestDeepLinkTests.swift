import FlowKit
import Testing

@testable import FlowManifest

/// The manifest's `deepLinks`: URL patterns mapped to request sequences, and every way to get them wrong.
struct ManifestDeepLinkTests {
    private let base = ManifestTests()

    /// The first steps of the links below, routed: a link's first step must be (``everyBadDeepLinkIsReportedWithItsPath``).
    private let routes = #"""
        [{"request": "catalog.detail", "plugin": "welcome", "manager": "Detail"},
         {"request": "home.show", "plugin": "welcome", "manager": "Home"}]
        """#

    private func manifest(deepLinks: String) -> String {
        base.manifest(routes: routes, extra: #", "deepLinks": "# + deepLinks)
    }

    @Test func deepLinksMapURLsToRequestsWithTheirCaptures() throws {
        let text = manifest(
            deepLinks: #"""
                [{"pattern": "demo://items/{id:int}", "requests": [{"request": "catalog.detail", "payload": {"id": "{id}"}}]},
                 {"pattern": "demo://about", "requests": ["home.show", "settings.about"]}]
                """#)

        let links = try Manifest.parse(text, path: ManifestTests.file).deepLinks

        #expect(
            try links.requests(for: "demo://items/2") == [CoordinationRequest("catalog.detail", payload: ["id": 2])])
        #expect(
            try links.requests(for: "demo://about") == [
                CoordinationRequest("home.show"), CoordinationRequest("settings.about"),
            ])
    }

    @Test func everyBadDeepLinkIsReportedWithItsPath() {
        let text = manifest(
            deepLinks: #"""
                [{"pattern": "demo://items/{id:num}", "requests": ["catalog.detail"]},
                 {"pattern": "demo://a", "requests": []},
                 {"pattern": "demo://b", "requests": [{"request": "x", "payload": {"id": "{id}"}}]},
                 {"pattern": "demo://a", "requests": ["y"]},
                 {"patern": "demo://c"}]
                """#)

        #expect(
            base.errors(in: text) == [
                "\(ManifestTests.file): deepLinks[0]: deep link pattern 'demo://items/{id:num}': unknown capture type 'num'; types: string, int",
                "\(ManifestTests.file): deepLinks[1]: deep link 'demo://a' opens no requests",
                "\(ManifestTests.file): deepLinks[2]: deep link 'demo://b': step 1 (x) uses {id}, which the pattern does not capture (it captures: nothing)",
                "\(ManifestTests.file): deepLinks[2].requests[0]: no route handles \"x\", the deep link's first step; a link's first step must be a request the routes handle (later steps may be routed by the child flows earlier ones open)",
                "\(ManifestTests.file): deepLinks[3]: duplicate pattern \"demo://a\", first declared at deepLinks[1]",
                "\(ManifestTests.file): deepLinks[3].requests[0]: no route handles \"y\", the deep link's first step; a link's first step must be a request the routes handle (later steps may be routed by the child flows earlier ones open)",
                "\(ManifestTests.file): deepLinks[4]: unknown key \"patern\"; did you mean \"pattern\"?",
                "\(ManifestTests.file): deepLinks[4]: missing required key \"requests\"",
            ])
    }

    /// `fromRoot: true` starts a link from the app's root (FlowKit 1.8); false or absent, from where the person is;
    /// anything else is an error naming it.
    @Test func fromRootSaysWhereALinkStarts() throws {
        let text = manifest(
            deepLinks: #"""
                [{"pattern": "demo://home", "requests": ["home.show"], "fromRoot": true},
                 {"pattern": "demo://items/{id:int}", "requests": ["catalog.detail"], "fromRoot": false},
                 {"pattern": "demo://about", "requests": ["home.show"]}]
                """#)
        let wrong = manifest(deepLinks: #"[{"pattern": "demo://home", "requests": ["home.show"], "fromRoot": "yes"}]"#)

        let links = try Manifest.parse(text, path: ManifestTests.file).deepLinks

        #expect(links.routes.map(\.fromRoot) == [true, false, false])
        #expect(try links.match("demo://home").route.fromRoot)
        #expect(
            base.errors(in: wrong) == [
                "\(ManifestTests.file): deepLinks[0].fromRoot: expected true or false, found string"
            ])
    }

    /// A link from the root sends its first step from `deepLink`: a request routed only from one module is not
    /// handled then, which the parser says; a route from any module, or from `deepLink`, handles it.
    @Test func aLinkFromTheRootNeedsARouteOfItsFirstStepFromAnyModule() {
        let text = base.manifest(
            routes: #"""
                [{"request": "catalog.detail", "from": "list", "plugin": "welcome", "manager": "Detail"},
                 {"request": "home.show", "from": "deepLink", "plugin": "welcome", "manager": "Home"}]
                """#,
            extra: #"""
                , "deepLinks": [{"pattern": "demo://items/{id:int}", "requests": ["catalog.detail"], "fromRoot": true},
                                {"pattern": "demo://home", "requests": ["home.show"], "fromRoot": true},
                                {"pattern": "demo://here/{id:int}", "requests": ["catalog.detail"]}]
                """#)

        #expect(
            base.errors(in: text) == [
                "\(ManifestTests.file): deepLinks[0].requests[0]: the routes of \"catalog.detail\" each handle it from one module only, and a link from the root sends its first step from deepLink; add a route without \"from\""
            ])
    }

    /// `opens`, the Swift API's word (`DeclaredDeepLink(_:opens:)`), is no typo of `requests` but another
    /// spelling of it: the key the manifest takes is suggested, and it alone is said, not its absence too.
    @Test func theSwiftSpellingOfRequestsIsAnsweredWithTheManifestsKey() {
        let text = manifest(deepLinks: #"[{"pattern": "demo://about", "opens": ["home.show"]}]"#)

        #expect(
            base.errors(in: text) == [
                "\(ManifestTests.file): deepLinks[0]: unknown key \"opens\"; did you mean \"requests\"?"
            ])
    }
}
