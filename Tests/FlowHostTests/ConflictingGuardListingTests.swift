import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowManifest
@testable import FlowTraces
@testable import PluginLoading

/// A guard two plugins declare differently refuses the requests either declaration would guard
/// (``ConflictingGuard``), so `flowhost list`, `list --json`, `validate --json` and `graph` show it where they
/// show the guards, marked as refusing. They showed only the guards in force, as if nothing guarded those
/// requests, while every one of them was refused. The compositions are made up from probes: no bundled pair
/// of plugins declares a guard differently.
@MainActor
struct ConflictingGuardListingTests {
    @Test func listShowsTheRefusingGuardAmongTheGuardsNamingThePlugins() throws {
        let host = try Host.parsing(
            #"{"manifestVersion": 1, "discover": [{"searchPath": true, "libraries": ["libWelcomePlugin.so"]}]}"#)
        let table = RoutingTable(registry: host.registry, composition: try compose())

        #expect(
            table.declarationLines == [
                "guards:",
                "  signedIn: catalog.*, express.*: refused (declared differently by plugins 'catalog', 'express')",
            ])
        let guards = try #require(JSONDocument.routes(table)["guards"])
        #expect(
            guards == [
                [
                    "name": "signedIn", "summary": "catalog.*, express.*: refused", "declaredBy": "catalog, express",
                    "refuses": true, "conflict": ["plugins": ["catalog", "express"]],
                ]
            ])
    }

    @Test func validateJSONListsTheRefusingGuardBeforeTheGuardsInForce() throws {
        let composition = try compose(
            #"{"guards": [{"name": "admin", "requests": ["catalog.delete"], "unless": {"context": "admin"}, "redirect": "catalog.detail"}]}"#
        )
        var report = ValidationReport(path: "/nonexistent/app.json", searchPath: { _ in PluginSearchPath([]) })
        report.manifest = composition.manifest
        report.composition = composition

        #expect(
            JSONDocument.validation(report)["guards"] == [
                [
                    "name": "signedIn", "declaredBy": "catalog, express", "refuses": true,
                    "conflict": ["plugins": ["catalog", "express"]],
                ],
                ["name": "admin", "declaredBy": "manifest", "refuses": false, "conflict": nil],
            ])
    }

    @Test func theGraphDrawsTheRefusingGuardWatchingTheRequestsItRefuses() throws {
        let composition = try compose()
        let graph = FlowGraph(manifest: composition.manifest, composition: composition)

        let node = try #require(graph.nodes.first { $0.id == "guard:signedIn" })
        #expect(node.conflict == ["catalog", "express"])
        #expect(
            graph.edges.filter { $0.to == node.id }.map(\.from) == ["request:catalog.detail", "request:express.show"])
        #expect(graph.edges.filter { $0.from == node.id }.isEmpty, "it redirects nowhere")
        let drawn = try #require(graph.json["nodes"]?.array?.first { $0["id"] == "guard:signedIn" })
        #expect(drawn["refuses"] == true)
        #expect(drawn["conflict"] == ["plugins": ["catalog", "express"]])
        #expect(graph.dot.contains(#"guard signedIn\nrefuses: in conflict\ndeclared differently by catalog, express"#))
    }

    // MARK: - Test Helpers

    /// `members` (a JSON object's text) composed with the catalog and express plugins, each routing a request
    /// and declaring the `signedIn` guard for its own requests.
    private func compose(_ members: String = "{}") throws -> PluginComposition {
        let extra = members.dropFirst().dropLast().trimmingPrefix(" ")
        let text = #"{"manifestVersion": 1, "discover": ["plugins.d"]"# + (extra.isEmpty ? "" : ", " + extra) + "}"
        let plugins = [
            plugin("catalog", request: "catalog.detail", pattern: "catalog.*"),
            plugin("express", request: "express.show", pattern: "express.*"),
        ]
        return PluginComposition(
            manifest: try Manifest.parse(text, path: "/app.json"),
            discovery: PluginDiscovery(
                libraries: plugins.map {
                    PluginDiscovery.Library(path: $0.path, directory: "/plugins.d", probe: .success($0))
                }, declared: [:]))
    }

    /// A probed plugin that routes `request` to its `Show` manager and declares `signedIn` for `pattern`.
    private func plugin(_ name: String, request: String, pattern: String) -> ProbedPlugin {
        ProbedPlugin(
            path: "/plugins.d/\(name).so", name: name, version: "1.0.0", flowKitVersion: .current,
            managers: [ProbedPlugin.Manager(name: "Show", requirements: [])], services: [],
            routes: [DeclaredRoute(CoordinationRequestName(request), manager: "Show")],
            guards: [DeclaredGuard("signedIn", requests: [pattern], unless: .context("user"), redirect: "auth.signIn")])
    }
}
