import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// `validate` warns of a request name that looks mistyped, by what the plugins declare: a routed request no
/// plugin declares or sends, near one that one does; a request a module sends that nothing routes, near one
/// that is routed.
@MainActor
struct RequestTypoTests {
    private func plugin(
        _ name: String, routes: [DeclaredRoute] = [], modules: [DeclaredModule] = []
    ) -> ProbedPlugin {
        ProbedPlugin(
            path: "/p/lib\(name).so", name: name, version: "1.0.0", flowKitVersion: FlowKitVersion.current,
            managers: [ProbedPlugin.Manager(name: "Wave", requirements: [])], services: [], routes: routes,
            modules: modules)
    }

    private func manifest(routing requests: [String], to plugin: String = "greeting") throws -> Manifest {
        let routes = requests.map { #"{"request": "\#($0)", "plugin": "\#(plugin)", "manager": "Wave"}"# }
        return try Manifest.parse(
            #"{"manifestVersion": 1, "plugins": {"\#(plugin)": "lib.so"}, "routes": [\#(routes.joined(separator: ", "))]}"#,
            path: "app.json")
    }

    @Test func aRoutedRequestNoPluginDeclaresNearADeclaredOneIsATypo() throws {
        let greeting = plugin(
            "greeting", routes: [DeclaredRoute("greeting.show", manager: "Wave")],
            modules: [DeclaredModule("greeting", presentedBy: "Wave", sends: [.action("wave", "greeting.wave")])])
        let manifest = try manifest(routing: ["greeting.show", "greting.wave"])

        let typos = RequestTypo.find(in: manifest, routes: manifest.routes, plugins: ["greeting": greeting])

        #expect(
            typos.map(\.description) == [
                "app.json: warning: routes[1].request: no plugin declares or sends 'greting.wave'; did you mean 'greeting.wave'?"
            ])
        // A route to a plugin that declares nothing is not judged, even when another declares a near name.
        let silent = plugin("greeting")
        #expect(RequestTypo.find(in: manifest, routes: manifest.routes, plugins: ["greeting": silent]).isEmpty)
        let other = plugin("other", routes: [DeclaredRoute("greeting.wave", manager: "Wave")])
        #expect(
            RequestTypo.find(in: manifest, routes: manifest.routes, plugins: ["greeting": silent, "other": other])
                .isEmpty)
    }

    /// A request the manifest sends itself is sent by someone: its start request, a deep link's step, a guard's
    /// redirect. A trial's `greeting.boom`, routed for a deep link, was said mistyped (`did you mean
    /// 'greeting.show'?`), and `validate --strict` failed on it.
    @Test func aRouteForARequestTheManifestSendsIsNoTypo() throws {
        let greeting = plugin("greeting", routes: [DeclaredRoute("greeting.show", manager: "Wave")])
        let routes = ["greeting.show", "greeting.boom", "greeting.shoo", "greeting.sho"]
            .map { #"{"request": "\#($0)", "plugin": "greeting", "manager": "Wave"}"# }
        let manifest = try Manifest.parse(
            #"""
            {"manifestVersion": 1, "plugins": {"greeting": "lib.so"}, "routes": [\#(routes.joined(separator: ", "))],
             "start": ["greeting.shoo"], "deepLinks": [{"pattern": "greet://boom", "requests": ["greeting.boom"]}],
             "guards": [{"name": "g", "requests": ["greeting.show"], "unless": {"context": "user"},
                         "redirect": "greeting.sho"}]}
            """#, path: "app.json")

        #expect(RequestTypo.find(in: manifest, routes: manifest.routes, plugins: ["greeting": greeting]).isEmpty)
    }

    @Test func aModuleSendingARequestNothingRoutesNearARoutedOneIsATypo() throws {
        let greeting = plugin(
            "greeting", routes: [DeclaredRoute("greeting.wave", manager: "Wave")],
            modules: [
                DeclaredModule(
                    "greeting", presentedBy: "Wave",
                    sends: [.action("wave", "greting.wave"), .action("settings", "settings.show")])
            ])
        let manifest = try manifest(routing: ["greeting.wave"])

        let typos = RequestTypo.find(in: manifest, routes: manifest.routes, plugins: ["greeting": greeting])

        #expect(
            typos.map(\.description) == [
                "/p/libgreeting.so: warning: plugin 'greeting' declares module 'greeting' sending 'greting.wave' (action 'wave'), which neither the manifest nor any plugin routes; did you mean 'greeting.wave'?"
            ], "settings.show is near nothing routed: another app may route it")
    }

    /// A manifest whose second route's request is mistyped (`catalog.detial`).
    private func mistypedManifest(in directory: TemporaryDirectory) throws -> String {
        try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"catalog": "libCatalogPlugin.so", "auth": "libAuthPlugin.so"},
                 "routes": [{"request": "catalog.list", "plugin": "catalog", "manager": "ItemList"},
                            {"request": "catalog.detial", "plugin": "catalog", "manager": "ItemDetail"}]}
                """)
    }

    @Test func validatePrintsTheWarningAndStaysValid() throws {
        let directory = try TemporaryDirectory()
        let path = try mistypedManifest(in: directory)

        let run = try Subprocess.flowhost(
            ["validate", path, "--plugin-path", BuildProducts.directory],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 0)
        // The notes after it say what the listed plugins declare that this manifest leaves out.
        #expect(
            run.errorLines.filter { !$0.hasPrefix("\(path): note: ") } == [
                "\(path): warning: routes[1].request: no plugin declares or sends 'catalog.detial'; did you mean 'catalog.detail'?"
            ])
        #expect(run.outputLines.first?.hasPrefix("\(path): ok") == true)
        let json = try Subprocess.flowhost(
            ["validate", path, "--json", "--plugin-path", BuildProducts.directory],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        let warning = try JSONValue(parsing: json.standardOutput)["warnings"]?[0]
        #expect(json.status == 0)
        #expect(warning?["kind"] == "requestTypo")
        #expect(warning?["path"] == "routes[1].request")
        #expect(warning?["suggestion"] == "catalog.detail")
    }

    /// `--strict`, for a check that gates on the exit code: the same warning fails it, exit 65, with a line
    /// that says why after it, and `valid` false in JSON; the notes do not count.
    @Test func strictValidateCountsTheWarningAsAProblem() throws {
        let directory = try TemporaryDirectory()
        let path = try mistypedManifest(in: directory)
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]

        let run = try Subprocess.flowhost(
            ["validate", path, "--strict", "--plugin-path", BuildProducts.directory], environment: environment)

        #expect(run.status == 65)
        #expect(
            run.errorLines.filter { !$0.hasPrefix("\(path): note: ") } == [
                "\(path): warning: routes[1].request: no plugin declares or sends 'catalog.detial'; did you mean 'catalog.detail'?",
                "\(path): 1 warning, which --strict counts as problems",
            ])
        #expect(run.errorLines.contains { $0.hasPrefix("\(path): note: ") }, "notes are printed, and not counted")
        #expect(run.standardOutput.isEmpty, "no ok line: \(run.standardOutput)")
        let strictJSON = try Subprocess.flowhost(
            ["validate", path, "--strict", "--json", "--plugin-path", BuildProducts.directory],
            environment: environment)
        #expect(strictJSON.status == 65)
        #expect(try JSONValue(parsing: strictJSON.standardOutput)["valid"] == false)

        let fixed = try directory.file(
            "fixed.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"catalog": "libCatalogPlugin.so", "auth": "libAuthPlugin.so"},
                 "routes": [{"request": "catalog.list", "plugin": "catalog", "manager": "ItemList"},
                            {"request": "catalog.detail", "plugin": "catalog", "manager": "ItemDetail"}]}
                """)
        let clean = try Subprocess.flowhost(
            ["validate", fixed, "--strict", "--plugin-path", BuildProducts.directory], environment: environment)
        #expect(clean.status == 0, "notes alone pass: \(clean.errorLines)")
        #expect(clean.errorLines.contains { $0.hasPrefix("\(fixed): note: ") }, "\(clean.errorLines)")
        #expect(clean.outputLines.first?.hasPrefix("\(fixed): ok") == true)
        // A warning about the command line's own files counts too; a missing manifest is still 66.
        let nowhere = directory.path + "/nowhere"
        let mistyped = try Subprocess.flowhost(
            ["validate", fixed, "--strict", "--plugin-path", BuildProducts.directory, "--plugin-path", nowhere],
            environment: environment)
        #expect(mistyped.status == 65)
        #expect(
            mistyped.errorLines.first
                == "flowhost: warning: --plugin-path \(nowhere) is not there; no plugin is found there")
        #expect(mistyped.errorLines.last == "\(fixed): 1 warning, which --strict counts as problems")
        let json = try Subprocess.flowhost(
            [
                "validate", fixed, "--strict", "--json", "--plugin-path", BuildProducts.directory, "--plugin-path",
                nowhere,
            ],
            environment: environment)
        #expect(try JSONValue(parsing: json.standardOutput)["warnings"]?[0]?["kind"] == "missingPluginPath")
        #expect(try Subprocess.flowhost(["validate", nowhere + ".json", "--strict"]).status == 66)
    }
}
