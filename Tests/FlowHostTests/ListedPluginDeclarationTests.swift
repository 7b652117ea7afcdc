import FlowKit
import Testing

/// A manifest that lists its plugins in `plugins` and discovers none uses only its own routes, services,
/// guards and deep links (docs/authoring.md section 15): what the plugins declare is for a manifest that
/// discovers them. `validate` says which declarations that leaves out, and a failing `open` names a listed
/// plugin's declared link.
struct ListedPluginDeclarationTests {
    /// A manifest listing the catalog (which declares routes, the Store, the `signedIn` guard and two deep
    /// links) and auth, routing one request and starting nothing.
    private func manifest(in directory: TemporaryDirectory) throws -> String {
        try directory.file(
            "app.json",
            containing:
                #"{"manifestVersion": 1, "plugins": {"catalog": "libCatalogPlugin.so", "auth": "libAuthPlugin.so"}, "routes": [{"request": "catalog.list", "plugin": "catalog", "manager": "ItemList"}]}"#
        )
    }

    @Test func validateNotesEachListedPluginsDeclarationsNotInEffect() throws {
        let directory = try TemporaryDirectory()
        let path = try manifest(in: directory)
        let run = try Subprocess.flowhost(["validate", path])

        #expect(run.status == 0, "stderr: \(run.standardError)")
        // The sends no route handles have notes of their own (UnroutedSendTests).
        let notes = run.errorLines.filter { $0.hasPrefix("\(path): note: ") && $0.contains(" is listed in plugins") }
        #expect(notes.count == 2, "one line per plugin: \(run.errorLines)")
        let catalog = try #require(notes.first { $0.contains("plugin 'catalog' is listed in plugins, not discovered") })
        #expect(catalog.contains("1 guard (signedIn)"))
        #expect(catalog.contains("2 deep links (demo://items/new, demo://items/{id:int})"))
        #expect(catalog.contains("1 service to start (Store)"))
        #expect(!catalog.contains("catalog.list"), "the manifest routes catalog.list itself")
        #expect(
            catalog.hasSuffix(
                "add them to the manifest's routes, services, guards and deepLinks, or discover the plugin (\"discover\")"
            ))
        #expect(notes.contains { $0.contains("plugin 'auth' is listed") })

        let json = try JSONValue(parsing: try Subprocess.flowhost(["validate", path, "--json"]).standardOutput)
        #expect(
            json["warnings"]?.array?.filter { $0["kind"] == "declarationsNotInEffect" }.compactMap {
                $0["plugin"]?.string
            }
                == ["auth", "catalog"])
    }

    @Test func openNamesTheListedPluginsDeclaredLinkThatIsNotUsed() throws {
        let directory = try TemporaryDirectory()
        let run = try Subprocess.flowhost(["run", try manifest(in: directory)], input: "open demo://items/7\n")

        #expect(
            run.errorLines.contains(
                "<stdin>:1: error: no deep link matches 'demo://items/7'; no deep link is in force; plugin 'catalog' declares 'demo://items/{id:int}', which is not used: a manifest that lists its plugins uses only its own deepLinks (add it there, or discover the plugin)"
            ), "stderr: \(run.standardError)")
    }
}
