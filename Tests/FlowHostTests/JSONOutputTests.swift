import FlowKit
import Testing

@testable import FlowShell

/// `validate`, `list` and `inspect` with `--json`: one JSON document on standard output whatever happens,
/// nothing on standard error, and the exit code the text output would give.
struct JSONOutputTests {
    /// Runs `flowhost`, requires standard output to be exactly one JSON document and standard error empty.
    private func json(_ arguments: [String]) throws -> (status: Int32, document: JSONValue) {
        let run = try Subprocess.flowhost(arguments)
        #expect(run.standardError.isEmpty, "stderr: \(run.standardError)")
        return (run.status, try JSONValue(parsing: run.standardOutput))
    }

    @Test func validManifestValidates() throws {
        let path = Repository.path("manifests/demo.json")
        let (status, document) = try json(["validate", path, "--json"])

        #expect(status == 0)
        #expect(
            document == [
                "manifest": .string(path), "valid": true, "plugins": 4, "routes": 12, "services": 3, "errors": [],
                "warnings": [],
                "guards": [["name": "signedIn", "declaredBy": "manifest", "refuses": false, "conflict": nil]],
                "deepLinks": [
                    ["pattern": "demo://items/new", "declaredBy": "manifest", "fromRoot": false],
                    ["pattern": "demo://items/{id:int}", "declaredBy": "manifest", "fromRoot": false],
                ],
            ])
    }

    /// A note is one of `warnings`, with its kind and what it is about: crashy.json lists auth, and routes
    /// neither what auth declares beyond sign-in nor the request its sign-in sends.
    @Test func notesAreWarningsWithTheirKind() throws {
        let (status, document) = try json(["validate", Repository.path("manifests/crashy.json"), "--json"])

        #expect(status == 0)
        #expect(document["valid"] == true)
        #expect(document["warnings"]?.array?.map { $0["kind"] } == ["declarationsNotInEffect", "unroutedRequest"])
        #expect(document["warnings"]?.array?.map { $0["plugin"] } == ["auth", "auth"])
        #expect(document["warnings"]?[1]?["request"] == "home.show")
    }

    @Test func aDiscoveringManifestsGuardsAndDeepLinksSayWhichPluginDeclaredThem() throws {
        let path = Repository.path("manifests/dropin.json")
        let (status, document) = try json(["validate", path, "--json"])
        let text = try Subprocess.flowhost(["validate", path])

        #expect(status == 0)
        #expect(
            document["guards"] == [["name": "signedIn", "declaredBy": "catalog", "refuses": false, "conflict": nil]])
        #expect(document["deepLinks"]?.array?.compactMap { $0["declaredBy"] } == ["catalog", "catalog"])
        #expect(
            text.outputLines.first
                == "\(path): ok (5 plugins, 12 routes, 12 of them declared by plugins, 3 services, 1 guard (1 declared by catalog), 2 deep links (2 declared by catalog))"
        )
    }

    @Test func missingManifestIsAFileNotFoundErrorWithExit66() throws {
        let (status, document) = try json(["validate", "/nonexistent/app.json", "--json"])

        #expect(status == 66)
        #expect(document["valid"] == false)
        #expect(document["routes"] == .null)
        #expect(
            document["errors"]
                == [
                    [
                        "file": "/nonexistent/app.json", "kind": "fileNotFound", "message": "manifest file not found",
                        "path": nil,
                    ]
                ])
    }

    @Test func invalidManifestReportsEveryErrorWithItsPathAndExit65() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "plugins": {}, "rotues": [], "routes": [{"request": 3}]}"#)

        let (status, document) = try json(["validate", path, "--json"])

        #expect(status == 65)
        let errors = try #require(document["errors"]?.array)
        #expect(errors.map { $0["kind"] } == ["unknownKey", "wrongType", "missingKey", "missingKey"])
        #expect(errors.first?["path"] == .null)
        #expect(errors.first?["message"] == #"unknown key "rotues"; did you mean "routes"?"#)
        #expect(errors.dropFirst().first?["path"] == "routes[0].request")
    }

    @Test func pluginProblemsAreErrorsToo() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so"},
                 "routes": [{"request": "about", "plugin": "settings", "manager": "Abuot"}]}
                """)

        let (status, document) = try json(["validate", path, "--json", "--plugin-path", BuildProducts.directory])

        #expect(status == 65)
        #expect(document["valid"] == false)
        #expect(document["routes"] == 1)
        let error = try #require(document["errors"]?[0])
        #expect(error["kind"] == "unknownManager")
        #expect(error["file"]?.string == path)
        #expect(error["path"] == "routes[0].manager")
        #expect(error["message"]?.string?.hasPrefix("plugin 'settings' exports no manager 'Abuot'") == true)
    }

    @Test func listGivesEveryRouteAndEachExperimentVariant() throws {
        let (status, document) = try json([
            "list", Repository.path("manifests/experiment.json"), "--json", "--plugin-path", BuildProducts.directory,
        ])

        #expect(status == 0)
        #expect(document["errors"] == [])
        let routes = try #require(document["routes"]?.array)
        let launch = try #require(routes.first)
        #expect(launch["request"] == "launch")
        #expect(launch["from"] == .null)
        #expect(launch["plugin"] == "welcome")
        #expect(launch["manager"] == "Launch")
        #expect(launch["experiment"] == .null)
        #expect(launch["status"] == "notLoaded")
        #expect(launch["error"] == .null)
        #expect(launch["library"]?.string?.hasSuffix("/libWelcomePlugin.so") == true)
        #expect(routes.contains { $0["from"] == "settings" && $0["manager"] == "Reauthenticate" })
        let arms = routes.compactMap { $0["experiment"]?["variant"]?.string }
        #expect(arms == ["classic", "express"])
        #expect(routes.first { $0["experiment"] != .null }?["experiment"]?["name"] == "create-flow")
    }

    @Test func listOfAnInvalidManifestHasNoRoutes() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("app.json", containing: "{")

        let (status, document) = try json(["list", path, "--json"])

        #expect(status == 65)
        #expect(document["routes"] == .null)
        #expect(document["errors"]?[0]?["kind"] == "notJSON")
    }

    @Test func inspectDescribesThePlugin() throws {
        let library = try BuildProducts.path(of: "libAuthPlugin.so")
        let (status, document) = try json(["inspect", library, "--json"])

        #expect(status == 0)
        #expect(document["errors"] == [])
        #expect(document["library"] == .string(library))
        let plugin = try #require(document["plugin"])
        #expect(plugin["name"] == "auth")
        #expect(plugin["flowKit"] == .string(FlowKitVersion.current.description))
        #expect(plugin["hostFlowKit"] == .string(FlowKitVersion.current.description))
        #expect(
            plugin["managers"]?.array?.compactMap { $0["name"]?.string } == ["Reauthenticate", "SignIn", "SignOut"])
        #expect(plugin["managers"]?[0]?["requires"] == [])
        #expect(plugin["services"] == ["Session"])
    }

    @Test func inspectOfAMissingOrBrokenLibraryIsAnErrorDocument() throws {
        let missing = try json(["inspect", "/nonexistent/libNothing.so", "--json"])
        #expect(missing.status == 66)
        #expect(missing.document["plugin"] == .null)
        #expect(missing.document["errors"]?[0]?["kind"] == "notFound")

        let directory = try TemporaryDirectory()
        let text = try directory.file("libText.so", containing: "hello")
        let broken = try json(["inspect", text, "--json"])
        #expect(broken.status == 65)
        #expect(broken.document["errors"]?[0]?["kind"] == "notELF")
        #expect(broken.document["errors"]?[0]?["file"] == .string(text))
    }

    @Test func usageErrorIsADocumentToo() throws {
        let run = try Subprocess.flowhost(["list", "--json"])

        #expect(run.status == 64)
        #expect(
            try JSONValue(parsing: run.standardOutput)
                == ["errors": [["file": nil, "kind": "usage", "message": "missing MANIFEST", "path": nil]]])
        #expect(run.standardError.contains(FlowHostCommandLine.list.usage))
    }

    @Test func badGlobalOptionIsADocumentToo() throws {
        let run = try Subprocess.flowhost(["--color", "never", "validate", "app.json", "--json", "--color=pink"])

        #expect(run.status == 64)
        #expect(
            try JSONValue(parsing: run.standardOutput)["errors"]?[0]?["message"]
                == "--color must be auto, always or never, not 'pink'")
    }
}
