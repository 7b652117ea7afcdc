import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowManifest
@testable import PluginLoading

/// Two started services that declare the same context key: `validate` warns, naming both and which one
/// gives it (the first started).
@MainActor
struct ContextKeyConflictTests {
    @Test func aKeyTwoStartedServicesProvideIsTheFirstStartedsAndWarned() {
        let keys: [String: [String: [String]]] = [
            "auth": ["Session": ["user", "locked"]], "onboarding": ["Profile": ["user", "onboarded"]],
            "catalog": ["Store": []],
        ]
        let services = [
            Manifest.ServiceRef(plugin: "auth", service: "Session"),
            Manifest.ServiceRef(plugin: "catalog", service: "Store"),
            Manifest.ServiceRef(plugin: "onboarding", service: "Profile"),
        ]

        let conflicts = ContextKeyConflict.conflicts(among: services) { keys[$0] }

        #expect(
            conflicts.map(\.description) == [
                "context key 'user' is provided by auth.Session and onboarding.Profile; auth.Session, started first, gives it, and guards and modules never read onboarding.Profile's; to have onboarding.Profile give it, list it in the manifest's \"services\" ahead of auth.Session (the services listed there start first, in their order), or rename the key in one of them"
            ])
        #expect(
            ContextKeyConflict.conflicts(among: services.reversed()) { keys[$0] }.first?.winner == "onboarding.Profile")
        #expect(ContextKeyConflict.conflicts(among: Array(services.prefix(2))) { keys[$0] }.isEmpty)
    }

    @Test func listingTheShadowedDiscoveredServiceInTheManifestsServicesMakesItGiveTheKey() throws {
        // As the warning advises: discovered, auth (by name) starts its Session first; listed, Profile does.
        let auth = plugin("auth", service: "Session", keys: ["user"])
        let onboarding = plugin("onboarding", service: "Profile", keys: ["user"])
        func winner(_ members: String) throws -> String? {
            let composition = PluginComposition(
                manifest: try Manifest.parse(
                    #"{"manifestVersion": 1, "discover": ["plugins.d"]"# + members + "}", path: "/app.json"),
                discovery: PluginDiscovery(
                    libraries: [auth, onboarding].map {
                        PluginDiscovery.Library(path: $0.path, directory: "/plugins.d", probe: .success($0))
                    }, declared: [:]))
            return ContextKeyConflict.conflicts(among: composition.manifest.services) {
                composition.plugin(named: $0)?.probe?.contextKeys
            }.first?.winner
        }

        #expect(try winner("") == "auth.Session")
        #expect(try winner(#", "services": [{"plugin": "onboarding", "service": "Profile"}]"#) == "onboarding.Profile")
    }

    @Test func aServicesContextKeysGoThroughItsProbe() throws {
        let cache = try TemporaryDirectory()
        let library = try BuildProducts.path(of: "libAuthPlugin.so")

        let inspect = try Subprocess.flowhost(
            ["inspect", library, "--json"], environment: ["XDG_CACHE_HOME": cache.path])
        let probe = try #require(try JSONValue(parsing: inspect.standardOutput)["plugin"])

        #expect(probe["contextKeys"] == ["Session": ["user", "locked"]])
        #expect(ProbedPlugin(json: probe, path: library)?.contextKeys == ["Session": ["user", "locked"]])
    }

    // MARK: - Test Helpers

    /// A probed plugin that exports and asks to start `service`, which declares the context `keys`.
    private func plugin(_ name: String, service: String, keys: [String]) -> ProbedPlugin {
        var probe = ProbedPlugin(
            path: "/plugins.d/\(name).so", name: name, version: "1.0.0", flowKitVersion: .current, managers: [],
            services: [service], routes: [], startServices: [ServiceStart(service)], requires: [:])
        probe.contextKeys = [service: keys]
        return probe
    }
}
