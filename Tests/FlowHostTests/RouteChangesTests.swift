import FlowKit
import Foundation
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import FlowTraces
@testable import PluginLoading

/// A manifest reload says which routes it added, sent elsewhere and removed: in the reload line, in the
/// trace's `manifestReloaded` line, and in what a replay prints of it.
@MainActor
struct RouteChangesTests {
    static func route(_ request: String, from module: String? = nil, _ plugin: String, _ manager: String)
        -> Manifest.Route
    {
        Manifest.Route(
            request: CoordinationRequestName(request), module: module.map { Coordinated($0) }, plugin: plugin,
            manager: manager, index: 0)
    }

    @Test func routesAreKnownByTheirRequestAndModuleAndTheirOrderDoesNotCount() {
        let before = [Self.route("greet", "greeter", "Hello"), Self.route("greet", from: "home", "greeter", "Hello")]
        #expect(RouteChanges(from: before, to: before.reversed()).isEmpty)
        let changes = RouteChanges(
            from: before, to: [Self.route("greet", from: "home", "greeter", "Hi"), Self.route("bye", "greeter", "Bye")])
        #expect(changes.added == ["bye"])
        #expect(changes.retargeted == [.init(route: "greet from home", target: "greeter.Hi")])
        #expect(changes.removed == ["greet"])
        #expect(changes.description == "added bye; greet from home now goes to greeter.Hi; removed greet")
    }

    @Test func aRouteToAnExperimentIsNamedByIt() {
        var experiment = Self.route("catalog.create", "catalog", "CreateItem")
        experiment.target = .experiment("create-flow")
        let changes = RouteChanges(from: [Self.route("catalog.create", "catalog", "CreateItem")], to: [experiment])
        #expect(changes.description == "catalog.create now goes to experiment create-flow")
    }

    @Test func aLongListNamesItsFirstFiveAndCountsTheRest() {
        let added = (1...8).map { Self.route("item.\($0)", "catalog", "ItemDetail") }
        #expect(
            RouteChanges(from: [], to: added).description
                == "added item.1, item.2, item.3, item.4, item.5 and 3 more")
    }

    /// demo.json with `auth.signIn from settings` removed, `auth.signIn` sent to Reauthenticate and two routes
    /// added.
    static func editedDemo() throws -> String {
        var demo = try #require(JSONValue(parsing: try readText(Repository.path("manifests/demo.json"))).object)
        var routes = try #require(demo["routes"]?.array)
        routes.removeAll { $0["request"] == "auth.signIn" && $0["from"] == "settings" }
        let signIn = try #require(routes.firstIndex { $0["request"] == "auth.signIn" })
        routes[signIn] = ["request": "auth.signIn", "plugin": "auth", "manager": "Reauthenticate"]
        routes.append(["request": "catalog.browse", "plugin": "catalog", "manager": "ItemList"])
        routes.append(["request": "settings.info", "plugin": "settings", "manager": "About"])
        demo["routes"] = .array(routes)
        return JSONValue.object(demo).prettyDescription
    }

    @Test func theReloadLineSaysWhatChanged() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("demo.json", containing: try readText(Repository.path("manifests/demo.json")))
        let host = FlowHost.Host(
            manifest: try Manifest.load(path: path), searchPath: PluginSearchPath([BuildProducts.directory]))
        host.start()
        _ = try directory.file("demo.json", containing: try Self.editedDemo())

        let reloaded = host.reloadManifest()

        #expect(
            reloaded.description
                == "reloaded manifest \(path): 13 routes; added catalog.browse, settings.info; auth.signIn now goes to auth.Reauthenticate; removed auth.signIn from settings"
        )
        #expect(
            host.reloadManifest().description == "reloaded manifest \(path): 13 routes",
            "read again, the same file changes nothing")
    }

    @Test func theTraceRecordsTheChangesAndAReplaySaysThem() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("demo.json", containing: try readText(Repository.path("manifests/demo.json")))
        let host = FlowHost.Host(
            manifest: try Manifest.load(path: path), searchPath: PluginSearchPath([BuildProducts.directory]))
        let run = TracedRun(host: host)
        await run.start()
        _ = try directory.file("demo.json", containing: try Self.editedDemo())

        await run.perform("reload manifest")

        let line = try #require(run.events.first { $0.kind == .manifestReloaded })
        #expect(line["added"] == ["catalog.browse", "settings.info"])
        #expect(line["retargeted"] == [["route": "auth.signIn", "target": "auth.Reauthenticate"]])
        #expect(line["removed"] == ["auth.signIn from settings"])
        #expect(
            line.summary
                == "reloaded manifest \(path): 13 routes; added catalog.browse, settings.info; auth.signIn now goes to auth.Reauthenticate; removed auth.signIn from settings"
        )
    }
}
