import FlowKit
import Testing

@testable import FlowHost

/// What a probe sends back and the registry cache keeps: a plugin's declarations survive the trip.
struct ProbedPluginTests {
    private let plugin = ProbedPlugin(
        path: "/p/libCatalog.so", name: "catalog", version: "1.2.0", abiVersion: 3,
        managers: [ProbedPlugin.Manager(name: "List", requirements: ["catalog.store"])], services: ["Store"],
        routes: [
            DeclaredRoute("catalog.list", manager: "List"), DeclaredRoute("catalog.list", from: "x", manager: "List"),
        ],
        startServices: [ServiceStart("Store", after: ["auth.Session"])], requires: ["auth": "^1.0"])

    @Test func declarationsSurviveTheJSONTheProbeSends() throws {
        let text = plugin.json.description

        let back = ProbedPlugin(json: try JSONValue(parsing: text), path: plugin.path)

        #expect(back == plugin)
    }

    @Test func aCacheEntryFromBeforeDeclarationsIsNotADescription() throws {
        var old = try #require(plugin.json.object)
        old["routes"] = nil
        old["startServices"] = nil
        old["requires"] = nil

        #expect(ProbedPlugin(json: .object(old), path: plugin.path) == nil, "so that the library is probed again")
    }
}
