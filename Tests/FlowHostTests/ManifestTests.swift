import FlowKit
import Testing

@testable import FlowManifest
@testable import HostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct ManifestTests {
    /// A made-up absolute manifest path for ``Manifest/parse(_:path:)``, which never reads it.
    static let file = "/srv/demo/manifests/demo.json"

    /// The problems `load` reports; an issue is recorded when it succeeds.
    func problems(_ load: () throws(ManifestErrors) -> Manifest) -> [ManifestError] {
        do {
            Issue.record("expected errors, got \(try load())")
            return []
        } catch {
            return error.errors
        }
    }

    /// The errors `text` produces, one line each.
    func errors(in text: String) -> [String] {
        problems { () throws(ManifestErrors) in try Manifest.parse(text, path: Self.file) }.map(\.description)
    }

    /// The kinds of errors `text` produces.
    func kinds(in text: String) -> [ManifestError.Kind] {
        problems { () throws(ManifestErrors) in try Manifest.parse(text, path: Self.file) }.map(\.kind)
    }

    /// A valid manifest with `routes` spliced in and two declared plugins.
    func manifest(routes: String, extra: String = "") -> String {
        #"{"manifestVersion": 1, "plugins": {"welcome": "libWelcome.so", "auth": "libAuth.so"}, "routes": "#
            + routes + extra + "}"
    }

    // MARK: - Valid manifests

    @Test func fullManifestParsesIntoTheExpectedModel() throws {
        let text = #"""
            {
              "manifestVersion": 1,
              "name": "demo",
              "pluginPath": ["../.build/debug", "/opt/flow/./plugins/", "plugins"],
              "plugins": {
                "welcome": "libWelcomePlugin.so",
                "auth": {
                  "library": "lib/libAuthPlugin.so",
                  "sha256": "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"
                },
                "catalog": { "library": "libCatalogPlugin.so" }
              },
              "routes": [
                { "request": "launch", "plugin": "welcome", "manager": "Launch" },
                { "request": "auth.signIn", "from": "checkout", "plugin": "auth", "manager": "QuickSignIn" },
                { "request": "auth.signIn", "plugin": "auth", "manager": "SignIn" },
                { "request": "catalog.show", "from": "app", "plugin": "catalog", "manager": "Catalog" }
              ],
              "services": [ { "plugin": "auth", "service": "Session" } ],
              "start": [ "launch", { "request": "catalog.show", "payload": { "filter": "new" } } ]
            }
            """#
        var expected = Manifest(
            path: Self.file, directory: "/srv/demo/manifests", manifestVersion: 1, name: "demo",
            pluginPath: ["/srv/demo/.build/debug", "/opt/flow/plugins", "/srv/demo/manifests/plugins"],
            plugins: [
                "welcome": .init(name: "welcome", library: "libWelcomePlugin.so"),
                "auth": .init(
                    name: "auth", library: "lib/libAuthPlugin.so",
                    sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
                "catalog": .init(name: "catalog", library: "libCatalogPlugin.so"),
            ],
            routes: [
                .init(request: "launch", plugin: "welcome", manager: "Launch", index: 0),
                .init(request: "auth.signIn", module: "checkout", plugin: "auth", manager: "QuickSignIn", index: 1),
                .init(request: "auth.signIn", plugin: "auth", manager: "SignIn", index: 2),
                .init(request: "catalog.show", module: "app", plugin: "catalog", manager: "Catalog", index: 3),
            ],
            services: [.init(plugin: "auth", service: "Session")],
            start: [CoordinationRequest("launch"), CoordinationRequest("catalog.show", payload: ["filter": "new"])]
        )
        expected.relativePluginPath = ["/srv/demo/.build/debug", "/srv/demo/manifests/plugins"]
        #expect(try Manifest.parse(text, path: Self.file) == expected)
    }

    @Test func minimalManifestHasEmptyDefaults() throws {
        let manifest = try Manifest.parse(#"{"manifestVersion": 1, "plugins": {}, "routes": []}"#, path: "/a/b.json")
        #expect(manifest == Manifest(path: "/a/b.json", directory: "/a"))
    }

    @Test func relativeManifestPathIsResolvedAgainstTheCurrentDirectory() throws {
        let text = #"{"manifestVersion": 1, "plugins": {}, "routes": [], "pluginPath": ["../lib", "."]}"#
        let manifest = try Manifest.parse(text, path: "config/app.json")
        let cwd = Manifest.normalisedPath(".", relativeTo: try #require(currentDirectory()))
        #expect(manifest.path == "config/app.json")
        #expect(manifest.directory == Manifest.normalisedPath("config", relativeTo: cwd))
        #expect(manifest.pluginPath == [Manifest.normalisedPath("lib", relativeTo: cwd), manifest.directory])
    }

    @Test func normalisationRemovesDotsAndRepeatedSlashesWithoutGoingAboveTheRoot() {
        #expect(Manifest.normalisedPath("a//b/./c/../d/", relativeTo: "/x") == "/x/a/b/d")
        #expect(Manifest.normalisedPath("../../../..", relativeTo: "/x/y") == "/")
        #expect(Manifest.normalisedPath("/abs/./path", relativeTo: "/ignored") == "/abs/path")
    }

    @Test func routesFromDifferentModulesForOneRequestAreNotDuplicates() throws {
        let text = manifest(
            routes: #"""
                [{"request": "launch", "plugin": "welcome", "manager": "A"},
                 {"request": "launch", "from": "x", "plugin": "welcome", "manager": "B"},
                 {"request": "launch", "from": "y", "plugin": "welcome", "manager": "C"}]
                """#)
        let manifest = try Manifest.parse(text, path: Self.file)
        #expect(manifest.routes.map(\.module) == [nil, "x", "y"])
    }

    @Test func loadReadsAndParsesARealFile() throws {
        let directory = try TemporaryDirectory()
        let text = #"{"manifestVersion": 1, "plugins": {}, "routes": [], "pluginPath": ["lib"]}"#
        let path = try directory.file("app.json", containing: Array(text.utf8))
        let manifest = try Manifest.load(path: path)
        #expect(manifest.directory == directory.path)
        #expect(manifest.pluginPath == [directory.path + "/lib"])
    }

    @Test func readmeExampleIsAValidManifest() throws {
        // Up from this file, its directory and Tests/ to the package root.
        let readme = Manifest.normalisedPath("../../../manifests/README.md", relativeTo: #filePath)
        let text = try String(decoding: Manifest.readFile(readme), as: UTF8.self)
        let start = try #require(text.firstRange(of: "```json\n"))
        let end = try #require(text[start.upperBound...].firstRange(of: "```"))
        let manifest = try Manifest.parse(String(text[start.upperBound..<end.lowerBound]), path: "/srv/demo.json")
        #expect(manifest.plugins.count == 3)
        #expect(manifest.routes.count == 4)
        #expect(manifest.start.count == 2)
    }

    // MARK: - Whole-file errors

    @Test func missingFileIsReportedAsNotFound() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/missing.json"
        let problems = problems { () throws(ManifestErrors) in try Manifest.load(path: path) }
        #expect(problems.map(\.kind) == [.fileNotFound])
        #expect(problems.map(\.description) == ["\(path): manifest file not found"])
    }

    @Test func aDirectoryIsNotAManifestFile() throws {
        let directory = try TemporaryDirectory()  // unlike chmod 000, reading a directory fails even as root
        let problems = problems { () throws(ManifestErrors) in try Manifest.load(path: directory.path) }
        #expect(problems.map(\.kind) == [.notRegularFile])
        #expect(problems.map(\.description) == ["\(directory.path): manifest file is a directory, not a regular file"])
    }

    @Test func invalidJSONAndDuplicateKeysAreReportedWithLineAndColumn() {
        #expect(
            errors(in: "{\n  \"manifestVersion\": 1,\n}") == [
                "\(Self.file): not valid JSON: line 2, column 23: trailing comma in object"
            ])
        #expect(kinds(in: "[") == [.notJSON])
        #expect(
            errors(in: #"{"routes": [], "routes": []}"#) == [
                #"\#(Self.file): not valid JSON: line 1, column 16: duplicate key "routes""#
            ])
    }

    @Test func invalidUTF8IsReportedWithLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        let latin1 = Array("{\n  \"name\": \"caf".utf8) + [0xE9, 0x22, 0x7D]  // "café" in ISO 8859-1
        let path = try directory.file("latin1.json", containing: latin1)
        let problems = problems { () throws(ManifestErrors) in try Manifest.load(path: path) }
        #expect(problems.map(\.description) == ["\(path): not valid JSON: line 2, column 15: invalid UTF-8"])
    }

    // MARK: - Errors at a JSON path

    @Test func wrongTypesAreReportedWithExpectedAndFoundTypes() {
        let text = #"""
            {"manifestVersion": "1", "name": 7, "pluginPath": "lib", "plugins": {"a": 3, "b": {"library": true}},
             "routes": [12, {"request": "x", "plugin": "a", "manager": null}], "services": {},
             "start": [false, {"request": "y", "payload": 1}]}
            """#
        #expect(
            errors(in: text) == [
                "\(Self.file): manifestVersion: expected integer, found string",
                "\(Self.file): name: expected string, found number",
                "\(Self.file): pluginPath: expected array, found string",
                "\(Self.file): plugins.a: expected string or object, found number",
                "\(Self.file): plugins.b.library: expected string, found boolean",
                "\(Self.file): routes[0]: expected object, found number",
                "\(Self.file): routes[1].manager: expected string, found null",
                "\(Self.file): services: expected array, found object",
                "\(Self.file): start[0]: expected string or object, found boolean",
                "\(Self.file): start[1]: no route handles \"y\" from the app, which sends the start requests",
            ])
    }

    @Test func missingRequiredKeysAreReported() {
        #expect(
            errors(in: "{}") == [
                #"\#(Self.file): missing required key "manifestVersion""#,
                #"\#(Self.file): missing required keys "plugins" and "routes"; list the plugins and route requests to their managers, or discover plugins that declare their routes with "discover": ["DIRECTORY"]"#,
            ])
        #expect(
            errors(in: manifest(routes: #"[{"request": "launch", "plugin": "welcome"}]"#)) == [
                #"\#(Self.file): routes[0]: missing required key "manager""#
            ])
    }

    /// A misspelt required key is one mistake, said once: the suggestion names the key that is missing.
    @Test func unknownKeyIsReportedWithASuggestion() {
        #expect(
            errors(in: #"{"manifestVersion": 1, "plugins": {}, "rotues": []}"#) == [
                #"\#(Self.file): unknown key "rotues"; did you mean "routes"?"#
            ])
        #expect(
            errors(in: manifest(routes: #"[{"request": "launch", "plugin": "welcome", "manger": "A"}]"#)) == [
                #"\#(Self.file): routes[0]: unknown key "manger"; did you mean "manager"?"#
            ])
        #expect(
            errors(in: #"{"manifestVersion": 1, "plugin": {}, "routes": []}"#) == [
                #"\#(Self.file): unknown key "plugin"; did you mean "plugins"?"#
            ])
    }

    @Test func unknownKeyFarFromEveryKnownKeyListsTheAllowedKeys() {
        #expect(
            errors(in: manifest(routes: "[]", extra: #", "services": [{"plugin": "auth", "colour": 1}]"#)) == [
                #"\#(Self.file): services[0]: unknown key "colour"; the keys allowed here are "plugin", "service""#,
                #"\#(Self.file): services[0]: missing required key "service""#,
            ])
    }

    @Test func unsupportedVersionIsReportedAlone() {
        #expect(
            errors(in: #"{"manifestVersion": 2, "plugins": [], "steps": []}"#) == [
                "\(Self.file): manifestVersion 2 is not supported; this flowhost reads version 1"
            ])
        #expect(kinds(in: #"{"manifestVersion": 1.5}"#) == [.unsupportedVersion])
    }

    @Test func routeOrServiceOfAnUndeclaredPluginListsTheDeclaredPlugins() {
        #expect(
            errors(in: manifest(routes: #"[{"request": "pay", "plugin": "payments", "manager": "Pay"}]"#)) == [
                #"\#(Self.file): routes[0].plugin: plugin "payments" is not declared in "plugins"; "#
                    + #"declared plugins are "auth", "welcome""#
            ])
        let empty =
            #"{"manifestVersion": 1, "plugins": {}, "#
            + #""routes": [{"request": "a", "plugin": "p", "manager": "M"}]}"#
        #expect(
            errors(in: empty) == [
                #"\#(Self.file): routes[0].plugin: plugin "p" is not declared in "plugins"; "plugins" is empty"#
            ])
        #expect(
            errors(in: manifest(routes: "[]", extra: #", "services": [{"plugin": "ath", "service": "S"}]"#)) == [
                #"\#(Self.file): services[0].plugin: plugin "ath" is not declared in "plugins"; "#
                    + #"declared plugins are "auth", "welcome""#
            ])
    }

    @Test func duplicateRouteNamesTheFirstDeclaration() {
        let text = manifest(
            routes: #"""
                [{"request": "launch", "plugin": "welcome", "manager": "A"},
                 {"request": "auth.signIn", "from": "checkout", "plugin": "auth", "manager": "B"},
                 {"request": "launch", "plugin": "auth", "manager": "C"},
                 {"request": "auth.signIn", "from": "checkout", "plugin": "auth", "manager": "D"}]
                """#)
        #expect(
            errors(in: text) == [
                #"\#(Self.file): routes[2]: duplicate route for "launch", first declared at routes[0]"#,
                #"\#(Self.file): routes[3]: duplicate route for "auth.signIn" from "checkout", "#
                    + "first declared at routes[1]",
            ])
    }

    @Test func aStartRequestNoRouteHandlesFromTheAppIsReported() {
        let routes = #"""
            [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
             {"request": "auth.signIn", "from": "settings", "plugin": "auth", "manager": "Reauthenticate"},
             {"request": "home.show", "from": "app", "plugin": "welcome", "manager": "Home"}]
            """#
        #expect(
            errors(in: manifest(routes: routes, extra: #", "start": ["lanch", "auth.signIn", "launch", "home.show"]"#))
                == [
                    "\(Self.file): start[0]: no route handles \"lanch\" from the app, which sends the start requests; did you mean \"launch\"?",
                    "\(Self.file): start[1]: no route handles \"auth.signIn\" from the app, which sends the start requests; it is routed only from \"settings\": route it from the app (no \"from\", or \"from\": \"app\")",
                ])
        #expect(kinds(in: manifest(routes: "[]", extra: #", "start": ["launch"]"#)) == [.unroutedStart])
        // A manifest that discovers plugins learns their routes only from their directories.
        #expect(
            (try? Manifest.parse(
                #"{"manifestVersion": 1, "discover": [{"directory": "plugins"}], "start": ["launch"]}"#, path: Self.file
            ))
                != nil)
    }

    @Test func emptyNamesAreReported() {
        let text = #"""
            {"manifestVersion": 1, "name": "", "pluginPath": [""], "plugins": {"": "libX.so", "y": {"library": ""}},
             "routes": [{"request": "", "from": "", "plugin": "", "manager": ""}],
             "services": [{"plugin": "y", "service": ""}], "start": ["", {"request": ""}]}
            """#
        #expect(
            errors(in: text) == [
                #"\#(Self.file): name: name must not be empty; omit "name" instead"#,
                "\(Self.file): pluginPath[0]: plugin path entry must not be empty",
                #"\#(Self.file): plugins[""]: plugin name must not be empty"#,
                "\(Self.file): plugins.y.library: library must not be empty",
                "\(Self.file): routes[0].request: request name must not be empty",
                #"\#(Self.file): routes[0].from: module name must not be empty; omit "from" to match every module"#,
                "\(Self.file): routes[0].plugin: plugin name must not be empty",
                "\(Self.file): routes[0].manager: manager name must not be empty",
                "\(Self.file): services[0].service: service name must not be empty",
                "\(Self.file): start[0]: request name must not be empty",
                "\(Self.file): start[1].request: request name must not be empty",
            ])
    }

    @Test func badChecksumIsReported() {
        let text = #"{"manifestVersion": 1, "plugins": {"a": {"library": "libA.so", "sha256": "abc"}}, "routes": []}"#
        #expect(
            errors(in: text) == [
                #"\#(Self.file): plugins.a.sha256: "abc" is not 64 hexadecimal digits; "#
                    + "give the library's SHA-256 as sha256sum prints it"
            ])
        let nonHex = String(repeating: "0", count: 63) + "g"
        let plugins = #"{"a": {"library": "a", "sha256": "\#(nonHex)"}}"#
        #expect(kinds(in: #"{"manifestVersion": 1, "plugins": \#(plugins), "routes": []}"#) == [.badChecksum])
    }

    @Test func keysThatAreNotIdentifiersAreQuotedInPaths() {
        let text = #"{"manifestVersion": 1, "plugins": {"my plugin": {"library": 1}}, "routes": []}"#
        #expect(errors(in: text) == [#"\#(Self.file): plugins["my plugin"].library: expected string, found number"#])
    }

    // MARK: - Collecting

    @Test func everyProblemInAFileIsReported() {
        let text = #"""
            {"manifestVersion": 1, "nmae": "demo", "plugins": {"auth": {"library": "libAuth.so", "sha256": "0"}},
             "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                        {"request": "launch", "plugin": "auth"}],
             "services": [{"plugin": "auth", "service": 3}]}
            """#
        let problems = problems { () throws(ManifestErrors) in try Manifest.parse(text, path: "demo.json") }
        #expect(
            problems.map(\.kind) == [
                .unknownKey, .badChecksum, .undeclaredPlugin, .missingKey, .duplicateRoute, .wrongType,
            ])
        #expect(
            ManifestErrors(problems).description == """
                demo.json: unknown key "nmae"; did you mean "name"?
                demo.json: plugins.auth.sha256: "0" is not 64 hexadecimal digits; \
                give the library's SHA-256 as sha256sum prints it
                demo.json: routes[0].plugin: plugin "welcome" is not declared in "plugins"; declared plugins are "auth"
                demo.json: routes[1]: missing required key "manager"
                demo.json: routes[1]: duplicate route for "launch", first declared at routes[0]
                demo.json: services[0].service: expected string, found number
                """)
    }
}

// MARK: - Helpers

private func currentDirectory() -> String? {
    guard let buffer = getcwd(nil, 0) else { return nil }
    defer { free(buffer) }
    return String(cString: buffer)
}

extension ManifestTests {
    @Test func experimentWeightsOutOfRangeAndZeroSumsAreRefused() {
        let text = """
            {"manifestVersion": 1, "plugins": {"p": "libP.so"},
             "experiments": {"e": {"subject": "user.id", "variants": [
                {"name": "a", "plugin": "p", "manager": "A", "weight": 9000000000000000000},
                {"name": "a", "plugin": "p", "manager": "B", "weight": 0}]},
              "z": {"subject": "user.id", "variants": [{"name": "a", "plugin": "p", "manager": "A", "weight": 0}]}},
             "routes": [{"request": "r", "experiment": "e"}, {"request": "s", "experiment": "nope"}]}
            """

        let errors = #expect(throws: ManifestErrors.self) { try Manifest.parse(text, path: "x.json") }

        #expect(
            errors?.errors.map(\.description) == [
                "x.json: experiments.e.variants[0].weight: weight 9e+18 is out of range; give a whole number from 0 to 1000000",
                "x.json: experiments.e.variants: variant name \"a\" is used twice; variant names must differ",
                "x.json: experiments.z.variants: the variants' weights add up to 0; give at least one a weight above 0",
                "x.json: routes[1].experiment: experiment \"nope\" is not declared in \"experiments\"; declared experiments are \"e\", \"z\"",
            ])
    }

    /// A route left out for its own error (a misspelt experiment, a missing manager) is said once: the start
    /// request, deep link and guard redirect that name its request are not also said to have no route, which
    /// fixing that route mends (found by an experiment-author trial).
    @Test func aRouteInErrorIsSaidOnceNotAgainForWhatNamesItsRequest() {
        let text = """
            {"manifestVersion": 1, "plugins": {"p": "libP.so"},
             "experiments": {"e": {"subject": "user.id", "variants": [{"name": "a", "plugin": "p", "manager": "A"}]}},
             "routes": [{"request": "create", "experiment": "f"}, {"request": "home", "plugin": "p"}],
             "start": ["home"],
             "deepLinks": [{"pattern": "demo://new", "requests": ["create"]}],
             "guards": [{"name": "signedIn", "requests": ["create"], "unless": {"context": "user"}, "redirect": "home"}]}
            """

        let errors = #expect(throws: ManifestErrors.self) { try Manifest.parse(text, path: "x.json") }

        #expect(
            errors?.errors.map(\.description) == [
                "x.json: routes[0].experiment: experiment \"f\" is not declared in \"experiments\"; declared experiments are \"e\"",
                "x.json: routes[1]: missing required key \"manager\"",
            ])
    }
}
