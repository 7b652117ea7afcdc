import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// A plugin the host loads at the start (its services are started) is checked against the managers the
/// manifest names of it, as `run --eager` checks every plugin: a misspelt manager is said at its place in the
/// manifest before the run, rather than only when its route is first used, in words naming the library.
@MainActor
struct UnexportedAtStartTests {
    private func host(routing manager: String, inExperiment: Bool = false) throws -> Host {
        let target =
            inExperiment
            ? #""experiments": {"e": {"subject": "user.id", "variants": [{"name": "a", "plugin": "auth", "manager": "\#(manager)"}]}}, "routes": [{"request": "go", "experiment": "e"}]"#
            : #""routes": [{"request": "go", "plugin": "auth", "manager": "\#(manager)"}]"#
        let text = #"""
            {"manifestVersion": 1, "plugins": {"auth": "libAuthPlugin.so", "catalog": "libCatalogPlugin.so"},
             "services": [{"plugin": "auth", "service": "Session"}], \#(target)}
            """#
        return Host(
            manifest: try Manifest.parse(text, path: "/app.json"),
            searchPath: PluginSearchPath([BuildProducts.directory]))
    }

    @Test func aMisspeltManagerOfAPluginLoadedAtTheStartIsSaidAtItsPlace() throws {
        #expect(
            try host(routing: "SignOn").problems.map(\.description) == [
                "/app.json: routes[0].manager: plugin 'auth' exports no manager 'SignOn' (did you mean 'SignIn'?); it exports: Reauthenticate, SignIn, SignOut"
            ])
        #expect(
            try host(routing: "SignOn", inExperiment: true).problems.map(\.description) == [
                "/app.json: experiments.e.variants[0].manager: plugin 'auth' exports no manager 'SignOn' (did you mean 'SignIn'?); it exports: Reauthenticate, SignIn, SignOut"
            ])
        // Not problems: a manager exported, and one of a plugin not loaded yet, whose exports are not known.
        #expect(try host(routing: "SignIn").problems.isEmpty)
        let text = #"""
            {"manifestVersion": 1, "plugins": {"catalog": "libCatalogPlugin.so"},
             "routes": [{"request": "go", "plugin": "catalog", "manager": "Hoem"}]}
            """#
        let lazy = Host(
            manifest: try Manifest.parse(text, path: "/app.json"),
            searchPath: PluginSearchPath([BuildProducts.directory]))
        #expect(lazy.problems.isEmpty, "a plugin loads on first use")
    }
}
