import FlowKit
import Testing

@testable import FlowManifest

/// The manifest's `discover`, `exclude` and `prefer`, and every way to get them wrong.
struct ManifestDiscoveryTests {
    private static let file = "/work/app/app.json"

    private func parse(_ text: String) throws(ManifestErrors) -> Manifest {
        try Manifest.parse(text, path: Self.file)
    }

    /// The one-line descriptions of the errors in `text`, without the file.
    private func errors(_ text: String) -> [String] {
        do {
            _ = try parse(text)
            return []
        } catch {
            return error.errors.map { String($0.description.dropFirst(Self.file.count + 2)) }
        }
    }

    @Test func theSmallestDiscoveringManifestNeedsNoPluginsNorRoutes() throws {
        let manifest = try parse(#"{"manifestVersion": 1, "discover": ["plugins.d"], "start": ["launch"]}"#)

        #expect(manifest.discover == [Manifest.Discovery(.directory("/work/app/plugins.d"))])
        #expect(manifest.discovers)
        #expect(manifest.plugins.isEmpty && manifest.routes.isEmpty)
        #expect(manifest.start.map(\.name) == ["launch"])
    }

    @Test func discoverTakesDirectoriesAndTheSearchPathWithPatterns() throws {
        let manifest = try parse(
            #"""
            {"manifestVersion": 1, "discover": ["/opt/plugins", {"directory": "../shared"},
              {"searchPath": true, "libraries": ["libAuth*.so", "libWelcomePlugin.so"]}]}
            """#)

        #expect(
            manifest.discover == [
                Manifest.Discovery(.directory("/opt/plugins")), Manifest.Discovery(.directory("/work/shared")),
                Manifest.Discovery(.searchPath, libraries: ["libAuth*.so", "libWelcomePlugin.so"]),
            ])
    }

    @Test func excludeAndPreferParseIntoSelectors() throws {
        let manifest = try parse(
            #"""
            {"manifestVersion": 1, "discover": ["plugins.d"],
             "exclude": {"plugins": ["legacy"], "routes": [{"request": "greet", "from": "x"}, {"request": "bye", "plugin": "greeter"}]},
             "prefer": [{"request": "catalog.create", "plugin": "catalog"}]}
            """#)

        #expect(manifest.exclude.plugins == ["legacy"])
        #expect(
            manifest.exclude.routes == [
                Manifest.RouteSelector(request: "greet", module: "x", place: "exclude.routes[0]"),
                Manifest.RouteSelector(request: "bye", plugin: "greeter", place: "exclude.routes[1]"),
            ])
        #expect(
            manifest.prefer == [
                Manifest.RouteSelector(request: "catalog.create", plugin: "catalog", place: "prefer[0]")
            ])
        #expect(manifest.exclude.routes[0].selects(request: "greet", module: "x", plugin: "any"))
        #expect(!manifest.exclude.routes[0].selects(request: "greet", module: nil, plugin: "any"))
        #expect(!manifest.exclude.routes[1].selects(request: "bye", module: nil, plugin: "other"))
    }

    @Test func routesServicesAndGuardsMayNameWhatOnlyDiscoveryFinds() throws {
        let manifest = try parse(
            #"""
            {"manifestVersion": 1, "discover": ["plugins.d"],
             "routes": [{"request": "auth.signIn", "from": "checkout", "plugin": "auth", "manager": "QuickSignIn"}],
             "services": [{"plugin": "auth", "service": "Session"}],
             "guards": [{"requests": ["catalog.*"], "unless": {"context": "user"}, "redirect": "auth.signIn"}]}
            """#)

        #expect(manifest.routes.first?.plugin == "auth")
        #expect(manifest.services.first?.plugin == "auth")
        #expect(manifest.guards.count == 1)
    }

    @Test func withoutDiscoverPluginsAndRoutesAreStillRequiredOrDiscoveryIsSuggested() {
        #expect(
            errors(#"{"manifestVersion": 1}"#) == [
                #"missing required keys "plugins" and "routes"; list the plugins and route requests to their managers, or discover plugins that declare their routes with "discover": ["DIRECTORY"]"#
            ])
        #expect(errors(#"{"manifestVersion": 1, "plugins": {}}"#) == [#"missing required key "routes""#])
        #expect(errors(#"{"manifestVersion": 1, "routes": []}"#) == [#"missing required key "plugins""#])
    }

    @Test func everyBadDiscoveryKeyIsReportedWithItsPath() {
        let text = #"""
            {"manifestVersion": 1, "plugins": {"auth": "libAuthPlugin.so"},
             "discover": ["", {"directory": "a", "searchPath": true}, {"searchPath": false}, {"libraries": ["x"]},
                          {"directory": "b", "libraries": ["sub/lib.so", 3]}, {"directory": "c", "libraries": []}, 7],
             "exclude": {"plugins": ["auth"], "routes": [{"from": "x"}], "files": []},
             "prefer": [{"request": "a"}, {"request": "b", "plugin": "p"}, {"request": "b", "plugin": "q"}]}
            """#

        #expect(
            errors(text) == [
                #"discover[0]: directory must not be empty"#,
                #"discover[1]: give exactly one of "directory" and "searchPath": true, found both"#,
                #"discover[2].searchPath: expected true, found false; omit "searchPath" and give "directory" instead"#,
                #"discover[3]: give exactly one of "directory" and "searchPath": true, found neither"#,
                #"discover[4].libraries[0]: library pattern "sub/lib.so" contains '/'; patterns match file names in the directory"#,
                #"discover[4].libraries[1]: expected string, found number"#,
                #"discover[5].libraries: "libraries" takes no library; omit it to take every "*.so""#,
                #"discover[6]: expected string or object, found number"#,
                #"exclude: unknown key "files"; the keys allowed here are "deepLinks", "guards", "plugins", "routes""#,
                #"exclude.plugins[0]: plugin "auth" is declared in "plugins"; remove it there instead of excluding it"#,
                #"exclude.routes[0]: missing required key "request""#,
                #"prefer[0]: missing required key "plugin""#,
                #"prefer[2]: a second preference for "b", first at prefer[1]; keep one"#,
            ])
    }

    @Test func excludeAndPreferWithoutDiscoverWouldDoNothing() {
        let text = #"""
            {"manifestVersion": 1, "plugins": {}, "routes": [], "exclude": {"plugins": ["x"]},
             "prefer": [{"request": "a", "plugin": "b"}]}
            """#

        #expect(
            errors(text) == [
                #"exclude: "exclude" applies to discovered plugins, and this manifest discovers none; add "discover" or remove "exclude""#,
                #"prefer: "prefer" applies to discovered plugins, and this manifest discovers none; add "discover" or remove "prefer""#,
            ])
    }

    @Test func anEmptyDiscoverIsAnError() {
        #expect(
            errors(#"{"manifestVersion": 1, "discover": []}"#) == [
                #"discover: "discover" lists no directory; give at least one, such as "plugins.d", or remove it"#
            ])
    }
}
