import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowManifest
@testable import PluginLoading

/// What a discovering manifest composes to, from probes made up here: precedence, conflicts, order
/// (requirements: `PluginCompositionTests+Requirements.swift`). No library is loaded (DiscoveryTests and
/// LiveDropInTests load real ones).
@MainActor
struct PluginCompositionTests {
    @Test func nothingDiscoveredComposesTheManifestAsWritten() throws {
        let composition = try compose(#"{"routes": [{"request": "x", "plugin": "a", "manager": "X"}]}"#)

        #expect(composition.manifest.routes.isEmpty == false)
        #expect(composition.problems.map(\.kind) == [.notFound], "routes[0] names a plugin nobody has")
        #expect(
            composition.failing[key("x")]?.message.hasPrefix("routes[0] names plugin 'a', which is neither") == true)
        #expect(composition.manifest.plugins.isEmpty)
    }

    @Test func oneDiscoveredPluginBringsItsRoutesAndServices() throws {
        let greeter = plugin(
            "greeter",
            routes: [DeclaredRoute("greet", manager: "Greeter"), DeclaredRoute("greet", from: "x", manager: "Wave")],
            services: ["Clock"], starts: [ServiceStart("Clock")])

        let composition = try compose("{}", [greeter])

        #expect(composition.problems.isEmpty)
        #expect(composition.manifest.plugins["greeter"]?.library == "/plugins.d/greeter.so")
        #expect(
            composition.manifest.routes.map { "\($0.request.rawValue) \($0.manager ?? "")" } == [
                "greet Greeter", "greet Wave",
            ])
        #expect(composition.sources[key("greet")] == .plugin("greeter"))
        #expect(composition.sources[key("greet", from: "x")] == .plugin("greeter"))
        #expect(composition.manifest.services == [Manifest.ServiceRef(plugin: "greeter", service: "Clock")])
    }

    @Test func manyPluginsLoadAndStartRequirementsFirst() throws {
        let plugins = [
            plugin("welcome", routes: [DeclaredRoute("launch", manager: "Launch")]),
            plugin("settings", services: ["Analytics"], starts: [ServiceStart("Analytics")], requires: ["auth": "^1"]),
            plugin("catalog", services: ["Store"], starts: [ServiceStart("Store")], requires: ["auth": ">=1.0 <2"]),
            plugin("auth", version: "1.4.0", services: ["Session"], starts: [ServiceStart("Session")]),
            plugin("express", requires: ["catalog": "^1.0"]),
        ]

        let composition = try compose("{}", plugins)

        #expect(composition.problems.isEmpty)
        #expect(composition.loadOrder == ["auth", "catalog", "express", "settings", "welcome"])
        #expect(
            composition.manifest.services.map(\.reportedName) == [
                "auth.Session", "catalog.Store", "settings.Analytics",
            ])
        #expect(composition.requirements["express"] == ["catalog"])
    }

    @Test func servicesStartAfterWhatTheyNameWhenItRuns() throws {
        let plugins = [
            plugin(
                "a", services: ["One", "Two"], starts: [ServiceStart("One", after: ["b.Three"]), ServiceStart("Two")]),
            plugin("b", services: ["Three"], starts: [ServiceStart("Three", after: ["gone.Nothing"])]),
        ]

        let composition = try compose(#"{"services": [{"plugin": "b", "service": "Three"}]}"#, plugins)
        let reordered = try compose("{}", plugins)

        #expect(
            composition.manifest.services.map(\.reportedName) == ["b.Three", "a.One", "a.Two"], "the manifest's first")
        #expect(reordered.manifest.services.map(\.reportedName) == ["a.Two", "b.Three", "a.One"])
        #expect(reordered.problems.isEmpty, "an after naming a service that does not run is only order")
    }

    @Test func aCycleOfAfterIsReportedAndKeepsRequirementOrder() throws {
        let plugins = [
            plugin("a", services: ["One"], starts: [ServiceStart("One", after: ["b.Two"])]),
            plugin("b", services: ["Two"], starts: [ServiceStart("Two", after: ["a.One"])]),
        ]

        let composition = try compose("{}", plugins)

        #expect(composition.manifest.services.map(\.reportedName) == ["a.One", "b.Two"])
        #expect(
            composition.problems.map(\.message) == [
                "services 'a.One', 'b.Two' each start after another of them; they start in requirement order instead"
            ])
    }

    @Test func theManifestsRouteOverridesADeclaredOne() throws {
        let plugins = [
            plugin(
                "catalog", routes: [DeclaredRoute("catalog.create", manager: "CreateItem")],
                managers: ["CreateItem", "QuickCreate"])
        ]

        let composition = try compose(
            #"{"routes": [{"request": "catalog.create", "plugin": "catalog", "manager": "QuickCreate"}]}"#, plugins)

        #expect(composition.problems.isEmpty)
        #expect(composition.manifest.routes.map(\.manager) == ["QuickCreate"])
        #expect(composition.sources[key("catalog.create")] == .manifest)
        #expect(composition.setAside.map(\.reason.description) == ["overridden by the manifest's routes[0]"])
    }

    @Test func excludedPluginsAndRoutesAreLeftOut() throws {
        let plugins = [
            plugin(
                "legacy", routes: [DeclaredRoute("old", manager: "Old")], services: ["Clock"],
                starts: [ServiceStart("Clock")]),
            plugin(
                "greeter",
                routes: [DeclaredRoute("greet", manager: "Greet"), DeclaredRoute("greet", from: "x", manager: "Wave")]),
        ]

        let composition = try compose(
            #"{"exclude": {"plugins": ["legacy"], "routes": [{"request": "greet", "from": "x"}]}}"#, plugins)

        #expect(composition.problems.isEmpty)
        #expect(composition.manifest.routes.map(\.request) == ["greet"])
        #expect(composition.manifest.plugins.keys.sorted() == ["greeter"])
        #expect(composition.manifest.services.isEmpty)
        #expect(composition.setAside.map(\.reason.description) == ["excluded by exclude.routes[0]"])
        guard case .excluded(let place) = composition.plugins[0].state else {
            throw TestFailure("legacy is \(composition.plugins[0].state)")
        }
        #expect(place == "exclude.plugins[0]")
    }

    @Test func twoPluginsDeclaringOneRouteConflictNamingBoth() throws {
        let plugins = [
            plugin(
                "catalog",
                routes: [
                    DeclaredRoute("catalog.create", manager: "CreateItem"),
                    DeclaredRoute("catalog.list", manager: "List"),
                ]),
            plugin("express", routes: [DeclaredRoute("catalog.create", manager: "ExpressCreate")]),
        ]

        let composition = try compose("{}", plugins)

        let message =
            #"plugins 'catalog' (catalog.CreateItem in /plugins.d/catalog.so) and 'express' (express.ExpressCreate in /plugins.d/express.so) both declare a route for "catalog.create"; pick one with "prefer": [{"request": "catalog.create", "plugin": "catalog"}], or route it in the manifest"#
        #expect(composition.problems.map(\.message) == [message])
        #expect(composition.problems.map(\.kind) == [.conflict])
        #expect(composition.failing[key("catalog.create")]?.message == message, "the route fails, naming both")
        #expect(composition.manifest.routes.map(\.request) == ["catalog.list"], "the rest is routed")
    }

    @Test func preferPicksOneOfTheConflictingPlugins() throws {
        let plugins = [
            plugin("catalog", routes: [DeclaredRoute("catalog.create", manager: "CreateItem")]),
            plugin("express", routes: [DeclaredRoute("catalog.create", manager: "ExpressCreate")]),
        ]

        let composition = try compose(#"{"prefer": [{"request": "catalog.create", "plugin": "express"}]}"#, plugins)
        let stale = try compose(#"{"prefer": [{"request": "catalog.create", "plugin": "other"}]}"#, plugins)

        #expect(composition.problems.isEmpty)
        #expect(composition.manifest.routes.map(\.manager) == ["ExpressCreate"])
        #expect(composition.sources[key("catalog.create")] == .plugin("express"))
        #expect(composition.setAside.map(\.reason.description) == ["prefer[0] prefers plugin 'express'"])
        #expect(
            stale.problems.map(\.message).first
                == #"prefer[0] picks plugin 'other' for "catalog.create", which it does not declare; it is declared by 'catalog', 'express'"#
        )
    }

    @Test func theManifestsOwnPluginsDeclareToo() throws {
        let auth = plugin(
            "auth", version: "1.0.0", routes: [DeclaredRoute("auth.signIn", manager: "SignIn")], managers: ["SignIn"])

        let composition = try compose(
            #"{"plugins": {"auth": "libAuthPlugin.so"}}"#, [plugin("catalog", requires: ["auth": "^1"])],
            declared: ["auth": .success(auth)])

        #expect(composition.problems.isEmpty)
        #expect(composition.sources[key("auth.signIn")] == .plugin("auth"))
        #expect(composition.manifest.plugins["auth"]?.library == "libAuthPlugin.so", "the manifest's entry stays")
        #expect(composition.loadOrder == ["auth", "catalog"])
    }

    @Test func aDiscoveredPluginOfTheManifestsNameIsOverridden() throws {
        let composition = try compose(
            #"{"plugins": {"auth": "libAuthPlugin.so"}}"#, [plugin("auth", version: "9.0.0")],
            declared: ["auth": .success(plugin("auth", version: "1.0.0"))])

        #expect(composition.problems.isEmpty)
        guard case .overridden(let by) = composition.plugins[1].state else {
            throw TestFailure("the discovered auth is \(composition.plugins[1].state)")
        }
        #expect(by == "plugins.auth")
    }

    @Test func twoLibrariesOfOnePluginUseTheFirstAndSaySo() throws {
        var second = plugin("greeter", routes: [DeclaredRoute("bye", manager: "Bye")])
        second.path = "/other/greeter.so"

        let composition = try compose(
            "{}", [plugin("greeter", routes: [DeclaredRoute("greet", manager: "Greet")]), second])

        #expect(
            composition.problems.map(\.description) == [
                "/other/greeter.so: plugin 'greeter' is also /plugins.d/greeter.so, found first; only that one is used; remove one of them"
            ])
        #expect(composition.manifest.routes.map(\.request) == ["greet"])
    }

    @Test func aDeclaredRouteToAManagerThePluginLacksIsAProblem() throws {
        let composition = try compose(
            "{}", [plugin("greeter", routes: [DeclaredRoute("greet", manager: "Gret")], managers: ["Greet"])])

        #expect(
            composition.problems.map(\.message) == [
                #"plugin 'greeter' declares a route for "greet" to manager 'Gret', which it does not export; it exports: Greet"#
            ])
        #expect(composition.manifest.routes.isEmpty)
    }

    @Test func aPluginGoneSinceThePreviousCompositionKeepsItsRoutesFailing() throws {
        let greeter = plugin("greeter", routes: [DeclaredRoute("greet", manager: "Greet")])
        let before = try compose("{}", [greeter])

        let after = try compose("{}", [], previous: before)

        guard case .removed = after.plugins.first?.state else { throw TestFailure("greeter is not removed") }
        #expect(after.manifest.routes.isEmpty)
        #expect(after.failing[key("greet")]?.kind == .removed)
        #expect(
            after.failing[key("greet")]?.message
                == "plugin 'greeter' was removed from /plugins.d while flowhost ran; its routes fail until it is back (its image stays loaded)"
        )
        let back = try compose("{}", [greeter], previous: after)
        #expect(back.failing.isEmpty)
        #expect(back.sources[key("greet")] == .plugin("greeter"))
    }

    /// A linker deletes a library before it writes the new one, and a watching host may read the directory
    /// meanwhile: a library there when its directory was read but gone when probed is waited for, not a problem.
    @Test func aLibraryGoneBetweenItsDirectorysReadAndItsProbeKeepsItsPluginAsItWas() throws {
        let greeter = plugin("greeter", routes: [DeclaredRoute("greet", manager: "Greet")])
        let before = try compose("{}", [greeter])

        let after = try compose("{}", [], vanished: [greeter.path], previous: before)

        #expect(after.problems.isEmpty, "\(after.problems)")
        #expect(after.plugin(named: "greeter")?.isActive == true, "kept for its library's return")
        #expect(after.sources[key("greet")] == .plugin("greeter"))
    }

    @Test func aLibraryThatCannotBeProbedIsAProblemAndTheOthersCompose() throws {
        let broken = PluginDiscovery.Library(
            path: "/plugins.d/bad.so", directory: "/plugins.d",
            probe: .failure(PluginLoadError(file: "/plugins.d/bad.so", kind: .crashed, message: "crashed with SIGABRT"))
        )
        let discovery = PluginDiscovery(
            libraries: [broken, library(plugin("greeter", routes: [DeclaredRoute("greet", manager: "Greet")]))])

        let composition = PluginComposition(manifest: try manifest("{}"), discovery: discovery)

        #expect(composition.problems.map(\.description) == ["/plugins.d/bad.so: crashed with SIGABRT"])
        #expect(composition.broken.count == 1)
        #expect(composition.manifest.routes.map(\.request) == ["greet"])
    }

    @Test func aListedPluginWhoseLibraryCannotBeProbedNowKeepsWhatItsLastProbeFound() throws {
        let greeter = listed("greeter", routes: [DeclaredRoute("greet", manager: "Greet")])
        let members = #"{"plugins": {"greeter": "/lib/greeter.so"}}"#
        let before = try compose(members, declared: ["greeter": .success(greeter)])
        let broken = PluginLoadError(file: greeter.path, kind: .notELF, message: "not an ELF shared object")

        let after = try compose(members, declared: ["greeter": .failure(broken)], previous: before)

        let plugin = try #require(after.plugin(named: "greeter"))
        #expect(plugin.isActive)
        #expect(plugin.probeFailure == broken)
        #expect(after.sources[key("greet")] == .plugin("greeter"), "still routed")
        #expect(after.failing.isEmpty)
        #expect(after.manifest.plugins["greeter"]?.library == "/lib/greeter.so")
        #expect(after.problems == [broken], "said as a problem; a host says it as a refused reload")
    }

    @Test func aListedPluginWhosePinChangedIsRefusedWhenItsLibraryCannotBeProbedAndItsRoutesFail() throws {
        let greeter = listed("greeter", routes: [DeclaredRoute("greet", manager: "Greet")])
        let before = try compose(
            #"{"plugins": {"greeter": {"library": "/lib/greeter.so", "sha256": "\#(String(repeating: "a", count: 64))"}}}"#,
            declared: ["greeter": .success(greeter)])
        let mismatch = PluginLoadError(
            file: greeter.path, kind: .checksumMismatch, message: "sha256 is \(String(repeating: "a", count: 64))")

        let after = try compose(
            #"{"plugins": {"greeter": {"library": "/lib/greeter.so", "sha256": "\#(String(repeating: "b", count: 64))"}}}"#,
            declared: ["greeter": .failure(mismatch)], previous: before)

        guard case .refused(let error) = after.plugins.first?.state else {
            throw TestFailure("greeter is \(String(describing: after.plugins.first?.state))")
        }
        #expect(error == mismatch)
        #expect(after.manifest.plugins["greeter"] == nil, "not in use")
        #expect(after.failing[key("greet")] == mismatch, "its routes fail with why, rather than go unrouted")
    }

    @Test func aListedPluginWhoseLibraryIsGoneIsRefused() throws {
        let greeter = listed("greeter", routes: [DeclaredRoute("greet", manager: "Greet")])
        let members = #"{"plugins": {"greeter": "/lib/greeter.so"}}"#
        let before = try compose(members, declared: ["greeter": .success(greeter)])
        let gone = PluginLoadError(
            file: greeter.path, kind: .notFound, message: "library of plugin 'greeter' not found")

        let after = try compose(members, declared: ["greeter": .failure(gone)], previous: before)

        guard case .refused = after.plugins.first?.state else { throw TestFailure("greeter is not refused") }
        #expect(after.failing[key("greet")] == gone)
    }

    // MARK: - Test Helpers

    func key(_ request: CoordinationRequestName, from module: Coordinated? = nil) -> PluginComposition.RouteKey {
        PluginComposition.RouteKey(request, from: module)
    }

    /// A probe of a plugin called `name` at `/plugins.d/NAME.so`, exporting `managers` (by default every
    /// manager its routes name) and `services`.
    func plugin(
        _ name: String, version: String = "1.0.0", routes: [DeclaredRoute] = [], managers: [String]? = nil,
        services: [String] = [], starts: [ServiceStart] = [], requires: [String: String] = [:]
    ) -> ProbedPlugin {
        ProbedPlugin(
            path: "/plugins.d/\(name).so", name: name, version: version, flowKitVersion: .current,
            managers: (managers ?? routes.map(\.manager)).map { ProbedPlugin.Manager(name: $0, requirements: []) },
            services: services, routes: routes, startServices: starts, requires: requires)
    }

    /// A probe of a plugin the manifest lists, at `/lib/NAME.so`.
    private func listed(_ name: String, routes: [DeclaredRoute]) -> ProbedPlugin {
        var probe = plugin(name, routes: routes)
        probe.path = "/lib/\(name).so"
        return probe
    }

    private func library(_ probe: ProbedPlugin) -> PluginDiscovery.Library {
        PluginDiscovery.Library(path: probe.path, directory: "/plugins.d", probe: .success(probe))
    }

    /// A manifest discovering `plugins.d`, with the members of `members` added.
    private func manifest(_ members: String) throws -> Manifest {
        let extra = members.dropFirst().dropLast().trimmingPrefix(" ")
        let text = #"{"manifestVersion": 1, "discover": ["plugins.d"]"# + (extra.isEmpty ? "" : ", " + extra) + "}"
        return try Manifest.parse(text, path: "/app.json")
    }

    func compose(
        _ members: String, _ plugins: [ProbedPlugin] = [],
        declared: [String: Result<ProbedPlugin, PluginLoadError>] = [:], vanished: Set<String> = [],
        previous: PluginComposition? = nil
    ) throws -> PluginComposition {
        PluginComposition(
            manifest: try manifest(members),
            discovery: PluginDiscovery(
                libraries: plugins.map(library), declared: declared, directories: ["/plugins.d"], vanished: vanished),
            previous: previous)
    }
}
