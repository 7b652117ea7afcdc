import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import PluginLoading

/// Integration: the real bundled plugin libraries, loaded with dlopen from the build directory.
@MainActor
struct BundledPluginTests {
    nonisolated static let plugins = [
        "WelcomePlugin", "AuthPlugin", "CatalogPlugin", "SettingsPlugin", "ExpressPlugin",
    ]

    @Test(arguments: plugins)
    func bundledPluginLoadsAndDescribesItself(_ name: String) throws {
        let plugin = try PluginLoader.load(path: BuildProducts.path(of: "lib\(name).so"))

        #expect(plugin.flowKitVersion == FlowKitVersion.current)
        #expect(!plugin.description.managers.isEmpty)
    }

    @Test func managerFromAPluginConformsToFlowKitsProtocolAcrossTheBoundary() throws {
        let plugin = try PluginLoader.load(path: BuildProducts.path(of: "libCatalogPlugin.so"))
        let factory = try #require(plugin.description.manager(named: "ItemList"))
        let coordinator = BaseFlowCoordinator()

        let manager: AnyObject = try factory.resolve().make(coordinator)

        // Two copies of FlowKit would make both casts fail: two protocol descriptors, two FlowManager classes.
        #expect(manager is any RequestCoordinatorManager)
        #expect(manager is FlowManager)
    }

    @Test func pluginsLoadLazilyOnTheFirstRequestTheyServe() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "About"}]}
            """)
        host.start()
        guard case .notLoaded = host.registry.status(of: "settings") else {
            Issue.record("settings loaded before any request")
            return
        }

        let outcome = host.coordinator.requestCoordination("settings.about", from: .app)

        #expect(outcome == .handled(manager: "settings.About"))
        #expect(host.coordinator.router.top?.name == "about")
        guard case .loaded = host.registry.status(of: "settings") else {
            Issue.record("settings did not load")
            return
        }
    }

    @Test func aPluginThatFailsFailsOnlyItsOwnRoutes() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1,
             "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so", "gone": "libGone.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "About"},
                        {"request": "gone.show", "plugin": "gone", "manager": "Gone"}]}
            """)
        host.start()

        let failed = host.coordinator.requestCoordination("gone.show", from: .app)
        let served = host.coordinator.requestCoordination("settings.about", from: .app)

        #expect(
            failed
                == .failed(
                    FlowError(
                        "libGone.so: library of plugin 'gone' not found (searched: \(BuildProducts.directory)); build it with `swift build` or add its directory with --plugin-path"
                    )))
        #expect(served == .handled(manager: "settings.About"))
    }

    @Test func routeToAManagerThePluginDoesNotExportFailsWithTheExportedNames() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "Abuot"}]}
            """)

        let outcome = host.coordinator.requestCoordination("settings.about", from: .app)

        guard case .failed(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        // Where the manifest names it, which is where to fix it.
        #expect(
            error.message.hasSuffix(
                "test.json: routes[0].manager: plugin 'settings' exports no manager 'Abuot' (did you mean 'About'?); it exports: About, Settings"
            ), "\(error.message)")
    }

    @Test func demoManifestValidates() throws {
        let manifest = try Manifest.load(path: Repository.path("manifests/demo.json"))
        let registry = PluginRegistry(manifest: manifest, searchPath: PluginSearchPath([BuildProducts.directory]))

        #expect(Host.check(manifest: manifest, registry: registry).isEmpty)
    }

    @Test func demoStartsOnTheWelcomeScreen() throws {
        let host = try Host.bundled("manifests/demo.json")

        let results = host.start()

        #expect(results.map(\.outcome) == [.handled(manager: "welcome.Launch")])
        #expect(host.problems.isEmpty)
        #expect(host.coordinator.router.state.description == "stack: welcome\ntop: welcome")
    }

    @Test func signingOutFromTheSettingsTabLeavesWelcomeAloneAndReleasesTheTabs() throws {
        let host = try Host.bundled("manifests/demo.json")
        host.start()
        try host.coordinator.router.top?.perform("signIn")
        try host.coordinator.router.top?.perform("submit", payload: ["user": "ada"])
        try host.coordinator.selectTab(1)
        weak let settingsTab = host.coordinator.children.last
        #expect(settingsTab?.name == "settings")

        let outcome = try host.coordinator.router.top?.perform("signOut")

        #expect(outcome == .handled(manager: "auth.SignOut"))
        #expect(host.coordinator.router.state == PresentationState(stack: ["welcome"], top: "welcome"))
        #expect(host.coordinator.children.isEmpty)
        #expect(settingsTab == nil, "the Settings tab's coordinator went with its tab")
    }

    @Test func itemCreationAnswersItsAskerWithTheNewItem() throws {
        let host = try Host.bundled("manifests/demo.json")
        host.start()
        try host.coordinator.router.top?.perform("signIn")
        try host.coordinator.router.top?.perform("submit", payload: ["user": "ada"])
        var results: [FlowResult] = []

        host.coordinator.requestCoordination(CoordinationRequest("catalog.create"), from: "itemList") {
            results.append($0)
        }
        try host.coordinator.router.top?.perform("save", payload: ["title": "Tent"])
        host.coordinator.requestCoordination(CoordinationRequest("catalog.create"), from: "itemList") {
            results.append($0)
        }
        try host.coordinator.dismiss()

        #expect(results == [.completed(["id": 4, "title": "Tent"]), .cancelled])
    }

    @Test(arguments: ["demo", "variant", "experiment"])
    func bundledScriptRunsToTheEndWithEveryExpectationMet(_ name: String) throws {
        let host = try Host.bundled("manifests/\(name).json")
        let shell = HostShell(host: host)
        #expect(shell.start().status == .ok)
        var expectations = 0

        for (number, line) in try readText(Repository.path("manifests/\(name).flow")).split(
            separator: "\n", omittingEmptySubsequences: false
        ).enumerated() {
            let reply = shell.execute(String(line))
            if line.hasPrefix("expect") { expectations += 1 }
            #expect(
                reply.status == .ok || reply.status == .quit, "\(name).flow:\(number + 1): \(line) -> \(reply.lines)")
        }
        #expect(expectations >= 5)
    }
}
