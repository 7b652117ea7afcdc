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
        #expect(changes.retargeted == [.init(route: "greet from home", target: .manager("greeter.Hi"))])
        #expect(changes.removed == ["greet"])
        #expect(
            changes.description
                == "added route: bye; sent elsewhere: greet from home (to greeter.Hi); removed route: greet")
    }

    @Test func aRouteToAnExperimentIsNamedByIt() {
        var experiment = Self.route("catalog.create", "catalog", "CreateItem")
        experiment.target = .experiment("create-flow")
        let changes = RouteChanges(from: [Self.route("catalog.create", "catalog", "CreateItem")], to: [experiment])
        #expect(changes.description == "sent elsewhere: catalog.create (to experiment create-flow)")
    }

    @Test func aLongListNamesItsFirstFiveAndCountsTheRest() {
        let added = (1...8).map { Self.route("item.\($0)", "catalog", "ItemDetail") }
        #expect(
            RouteChanges(from: [], to: added).description
                == "added routes: item.1, item.2, item.3, item.4, item.5 (and 3 more)")
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
                == "reloaded manifest \(path): 13 routes; added routes: catalog.browse, settings.info; sent elsewhere: auth.signIn (to auth.Reauthenticate); removed route: auth.signIn from settings"
        )
        #expect(
            host.reloadManifest().description == "reloaded manifest \(path): 13 routes",
            "read again, the same file changes nothing")
    }

    @Test func theTraceRecordsTheChangesAndItsReplayIsIdentical() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("demo.json", containing: try readText(Repository.path("manifests/demo.json")))
        let tracePath = directory.path + "/t.jsonl"
        let writer = try TraceWriter(path: tracePath)
        let recorder = TraceRecorder { writer.write($0) }
        let host = FlowHost.Host(
            manifest: try Manifest.load(path: path), searchPath: PluginSearchPath([BuildProducts.directory]),
            discoveryProber: try PluginProber.forTests())
        let shell = HostShell(host: host)
        recorder.header(for: host)
        recorder.beginSession(shell)
        _ = await shell.startAndWait(tracing: recorder)
        _ = try directory.file("demo.json", containing: try Self.editedDemo())
        _ = await shell.perform("reload manifest", tracing: recorder)
        writer.close()

        let lines = try readText(tracePath).split(separator: "\n")
        let reloaded = try TraceEvent(line: Array(try #require(lines.first { $0.contains("manifestReloaded") }).utf8))
        #expect(reloaded["added"] == ["catalog.browse", "settings.info"])
        #expect(reloaded["retargeted"] == [["route": "auth.signIn", "manager": "auth.Reauthenticate"]])
        #expect(reloaded["removed"] == ["auth.signIn from settings"])
        #expect(
            reloaded.summary
                == "reloaded manifest \(path): 13 routes; added routes: catalog.browse, settings.info; sent elsewhere: auth.signIn (to auth.Reauthenticate); removed route: auth.signIn from settings"
        )

        // Against the manifest as it is now, the replay's own reload changes nothing.
        let replay = try Subprocess.flowhost(["replay", tracePath])

        #expect(replay.status == 0, "\(replay.standardOutput)")
        #expect(replay.standardOutput.hasPrefix("replay identical: "), "\(replay.standardOutput)")
    }

    @Test func aReplaySaysARecordedRetargetToAnExperiment() {
        let line: JSONValue = [
            "kind": "manifestReloaded", "t": 1, "session": 1, "input": 1, "manifest": "e.json", "routes": 1,
            "retargeted": [["route": "catalog.create", "experiment": "create-flow"]],
        ]
        let event = try? TraceEvent(line: Array(line.description.utf8))
        #expect(
            event?.summary
                == "reloaded manifest e.json: 1 route; sent elsewhere: catalog.create (to experiment create-flow)")
    }
}
