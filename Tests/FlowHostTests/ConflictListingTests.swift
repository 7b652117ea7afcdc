import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// What `flowhost list` says under its table of a conflict between plugins: one line per conflict, naming
/// every plugin in it. It said each one once per plugin, the second line a mirror of the first (`declared by
/// catalog: conflicts with plugin 'express'`, then `declared by express: conflicts with plugin 'catalog'`).
@MainActor
struct ConflictListingTests {
    @Test func aRouteTwoBundledPluginsDeclareIsListedOnceNamingBoth() throws {
        let lab = try DropInLab()
        for library in ["libAuthPlugin.so", "libCatalogPlugin.so", "libExpressPlugin.so"] {
            try lab.add(library)
        }
        let host = try lab.host()

        let notes = RoutingTable(registry: host.registry, composition: host.composition).notes

        #expect(
            notes.filter { $0.hasPrefix("  catalog.create") } == [
                "  catalog.create -> catalog.CreateItem, express.ExpressCreate, declared by plugins 'catalog', 'express': in conflict; the route fails until the manifest picks one"
            ], "\(notes)")
    }

    @Test func aGuardAndADeepLinkTwoPluginsDeclareDifferentlyAreListedOnceEach() throws {
        let host = try Host.parsing(
            #"{"manifestVersion": 1, "discover": [{"searchPath": true, "libraries": ["libWelcomePlugin.so"]}]}"#)
        let link = DeclaredDeepLink("demo://items/{id:int}", opens: [CoordinationRequest("catalog.detail")])
        let otherLink = DeclaredDeepLink("demo://items/{id:int}", opens: [CoordinationRequest("express.show")])
        let composition = PluginComposition(
            manifest: try Manifest.parse(#"{"manifestVersion": 1, "discover": ["plugins.d"]}"#, path: "/app.json"),
            discovery: PluginDiscovery(
                libraries: [
                    plugin("catalog", guards: [signedIn("catalog.*")], deepLinks: [link]),
                    plugin("express", guards: [signedIn("express.*")], deepLinks: [otherLink]),
                ].map { PluginDiscovery.Library(path: $0.path, directory: "/plugins.d", probe: .success($0)) },
                declared: [:]))

        let notes = RoutingTable(registry: host.registry, composition: composition).notes

        #expect(
            notes == [
                "declared guards and deep links set aside:",
                "  guard signedIn, declared differently by plugins 'catalog', 'express': in conflict; the requests they guard are refused until the manifest settles it",
                "  deep link demo://items/{id:int}, declared differently by plugins 'catalog', 'express': in conflict; none is taken until the manifest settles it",
            ])
    }

    // MARK: - Test Helpers

    /// The `signedIn` guard, applying to `pattern`.
    private func signedIn(_ pattern: String) -> DeclaredGuard {
        DeclaredGuard("signedIn", requests: [pattern], unless: .context("user"), redirect: "auth.signIn")
    }

    /// A probed plugin that declares only `guards` and `deepLinks`.
    private func plugin(_ name: String, guards: [DeclaredGuard], deepLinks: [DeclaredDeepLink]) -> ProbedPlugin {
        ProbedPlugin(
            path: "/plugins.d/\(name).so", name: name, version: "1.0.0", flowKitVersion: .current, managers: [],
            services: [], routes: [], requires: [:], guards: guards, deepLinks: deepLinks)
    }
}
