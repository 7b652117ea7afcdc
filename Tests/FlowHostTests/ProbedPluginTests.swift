import FlowKit
import Testing

@testable import HostSupport
@testable import PluginLoading

/// What a probe sends back and the registry cache keeps: a plugin's declarations survive the trip.
@MainActor
struct ProbedPluginTests {
    private let plugin = ProbedPlugin(
        path: "/p/libCatalog.so", name: "catalog", version: "1.2.0", flowKitVersion: FlowKitVersion(major: 1, minor: 3),
        managers: [ProbedPlugin.Manager(name: "List", requirements: ["catalog.store"])], services: ["Store"],
        routes: [
            DeclaredRoute("catalog.list", manager: "List"), DeclaredRoute("catalog.list", from: "x", manager: "List"),
            DeclaredRoute("catalog.page", manager: ManagerFactory("Page", FlowManager.self), inChildFlow: "browse"),
        ],
        startServices: [ServiceStart("Store", after: ["auth.Session"])], requires: ["auth": "^1.0"],
        deepLinks: [
            DeclaredDeepLink("demo://home", opens: [CoordinationRequest("catalog.list")], fromRoot: true),
            DeclaredDeepLink(
                "demo://items/{id:int}", opens: [CoordinationRequest("catalog.detail", payload: ["id": "{id}"])]),
        ],
        modules: [
            DeclaredModule("itemList", presentedBy: "List", sends: [.action("open", "catalog.detail")]),
            DeclaredModule("createItem", sends: [.request("catalog.create.form"), .action("browse", opens: "browse")]),
            DeclaredModule("empty"),
        ])

    @Test func declarationsSurviveTheJSONTheProbeSends() throws {
        let text = plugin.json.description

        let back = ProbedPlugin(json: try JSONValue(parsing: text), path: plugin.path)

        #expect(back == plugin)
        #expect(back?.modules.first?.sends.first?.action == "open")
        #expect(back?.modules[1].sends.first?.action == nil, "a request sent without an action stays without one")
        #expect(back?.modules[1].sends.last?.opens == "browse")
        #expect(back?.routes.count == 2, "a child flow's route is not one a manifest takes")
        #expect(back?.childFlowRoutes.map(\.childFlow) == ["browse"])
    }

    /// A deep link a flowhost before FlowKit 1.8 cached, with no `fromRoot`, would read as one from where the
    /// person is whatever the plugin declares: the library is probed again.
    @Test func aCacheEntryFromBeforeDeepLinksFromTheRootIsProbedAgain() throws {
        var old = try #require(plugin.json.object)
        #expect(ProbedPlugin(json: .object(old), path: plugin.path)?.deepLinks.map(\.fromRoot) == [true, false])
        old["deepLinks"] = .array(
            (old["deepLinks"]?.array ?? []).map { link in
                var link = link
                link["fromRoot"] = nil
                return link
            })

        #expect(ProbedPlugin(json: .object(old), path: plugin.path) == nil)
    }

    @Test func aCacheEntryFromBeforeDeclarationsIsNotADescription() throws {
        var old = try #require(plugin.json.object)
        old["routes"] = nil
        old["startServices"] = nil
        old["requires"] = nil

        #expect(ProbedPlugin(json: .object(old), path: plugin.path) == nil, "so that the library is probed again")
    }

    @Test func aCacheEntryFromBeforeModulesIsProbedAgain() throws {
        var old = try #require(plugin.json.object)
        old["modules"] = nil

        #expect(ProbedPlugin(json: .object(old), path: plugin.path) == nil)
    }

    @Test func theRegistryCacheKeepsTheModules() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file("libCatalog.so", containing: "not a library, only a file to identify")
        let identity = try #require(FileIdentity(path: library))
        var probed = plugin
        probed.path = library
        probed.digest = "ab12"
        let cache = ProbeCache(directory: CacheDirectory(path: directory.path + "/cache"))

        cache.store(probed, identity: identity, pin: nil)

        #expect(cache.lookup(library, identity: identity, pin: nil)?.modules == plugin.modules)
    }

    @Test func aProbeOfABundledPluginCarriesItsModulesIntoTheCache() throws {
        let directory = try TemporaryDirectory()
        let cache = ProbeCache(directory: CacheDirectory(path: directory.path + "/cache"))
        let prober = PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: cache, quarantine: nil)
        let library = try BuildProducts.path(of: "libCatalogPlugin.so")

        let probed = try prober.probe(library)

        let itemList = try #require(probed.modules.first { $0.module == "itemList" })
        #expect(itemList.managers == ["ItemList"])
        #expect(itemList.sends == [.action("open", "catalog.detail"), .action("create", "catalog.create")])
        let cached = cache.lookup(library, identity: try #require(FileIdentity(path: library)), pin: nil)
        #expect(cached?.modules == probed.modules)
        #expect(try prober.probe(library).modules == probed.modules)
        #expect(prober.probesRun == 1, "the second probe is the cache's")
    }

    @Test func aDeclaredModuleOfAManagerThePluginDoesNotExportIsAProblem() {
        var probed = plugin
        probed.modules.append(DeclaredModule("itemDetail", presentedBy: ["List", "Detail"]))

        #expect(
            probed.declarationProblems.map(\.description) == [
                "/p/libCatalog.so: plugin 'catalog' declares module 'itemDetail' presented by manager 'Detail', which it does not export; it exports: List"
            ])
        #expect(plugin.declarationProblems.isEmpty)
    }
}
