import FlowKit
import Testing

@testable import FlowHost
@testable import HostSupport
@testable import PluginLoading

/// `inspect` of a plugin whose declarations name what it does not export: the description, then each
/// problem in `validate`'s words, and exit 65.
@MainActor
struct InspectProblemsTests {
    @Test func aDeclaredRouteStartOrModuleOfWhatThePluginLacksIsAProblem() throws {
        let directory = try TemporaryDirectory()
        let library = try BuildProducts.path(of: "libCatalogPlugin.so")
        // What a plugin whose description names 'Lists' and 'Stock' without exporting them sends back: its
        // probe, as the cache has it.
        let cache = ProbeCache(directory: CacheDirectory(path: directory.path + "/cache/flowhost"))
        let prober = PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: cache, quarantine: nil)
        var probed = try prober.probe(library)
        probed.routes.append(DeclaredRoute("catalog.lists", manager: "Lists"))
        probed.startServices.append(ServiceStart("Stock"))
        probed.modules.append(DeclaredModule("lists", presentedBy: "Lists"))
        cache.store(probed, identity: try #require(FileIdentity(path: library)), pin: nil)
        cache.writePending()  // within a second of the probe's own write, the store would wait
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let managers = probed.managers.map(\.name).joined(separator: ", ")

        let text = try Subprocess.flowhost(["inspect", library], environment: environment)
        let json = try Subprocess.flowhost(["inspect", library, "--json"], environment: environment)

        #expect(text.status == 65)
        #expect(text.outputLines.contains("  catalog.lists -> Lists"), "the description is printed all the same")
        #expect(
            text.errorLines == [
                #"\#(library): plugin 'catalog' declares a route for "catalog.lists" to manager 'Lists', which it does not export; it exports: \#(managers)"#,
                "\(library): plugin 'catalog' asks to start service 'Stock', which it does not export; it exports: \(probed.services.joined(separator: ", "))",
                "\(library): plugin 'catalog' declares module 'lists' presented by manager 'Lists', which it does not export; it exports: \(managers)",
                "\(library): 3 problems found",
            ])
        #expect(json.status == 65)
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(
            document["errors"]?.array?.map { $0["kind"] } == ["unknownManager", "unknownService", "unknownManager"])
        #expect(document["plugin"]?["name"] == "catalog")
    }
}
