import FlowKit
import Testing

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
                "context key 'user' is provided by auth.Session and onboarding.Profile; auth.Session, started first, gives it, and guards and modules never read onboarding.Profile's; start the one that should give it first, or rename the key in the other"
            ])
        #expect(
            ContextKeyConflict.conflicts(among: services.reversed()) { keys[$0] }.first?.winner == "onboarding.Profile")
        #expect(ContextKeyConflict.conflicts(among: Array(services.prefix(2))) { keys[$0] }.isEmpty)
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
}
