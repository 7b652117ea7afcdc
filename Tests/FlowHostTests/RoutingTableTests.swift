import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// The routing table `flowhost list` prints, and the report `flowhost validate` makes.
@MainActor
struct RoutingTableTests {
    @Test func experimentRouteHasOneRowPerVariant() throws {
        let manifest = try Manifest.load(path: Repository.path("manifests/experiment.json"))
        let registry = PluginRegistry(manifest: manifest, searchPath: PluginSearchPath([BuildProducts.directory]))

        let rows = RoutingTable(registry: registry).rows

        #expect(rows.first == ["REQUEST", "FROM", "PLUGIN", "MANAGER", "DECLARED BY", "LIBRARY", "LOADED"])
        #expect(rows.count == manifest.routes.count + 1 + 1)  // the header, and a second variant
        let create = rows.filter { $0[0] == "catalog.create" }
        #expect(
            create.map { $0[3] } == ["CreateItem [create-flow:classic w50]", "ExpressCreate [create-flow:express w50]"])
        #expect(create.map { $0[4] } == ["manifest", "manifest"])
        #expect(create.map { $0[6] } == ["no", "no"])
    }

    @Test func loadedAndFailedPluginsSaySo() throws {
        let manifest = try Manifest.parse(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so", "gone": "libGone.so"},
             "routes": [{"request": "about", "plugin": "settings", "manager": "About"},
                        {"request": "gone", "from": "app", "plugin": "gone", "manager": "Gone"}]}
            """, path: Repository.path("manifests/test.json"))
        let registry = PluginRegistry(manifest: manifest, searchPath: PluginSearchPath([BuildProducts.directory]))
        _ = registry.loadAll()

        let table = RoutingTable(registry: registry)

        #expect(table.rows.dropFirst().map { $0[6] } == ["yes", "failed"])
        #expect(table.rows[2][1] == "app")
        #expect(table.rows[2][5] == "libGone.so")
        guard case .failed(let error) = table.entries[1].status else {
            Issue.record("the missing plugin is not failed")
            return
        }
        #expect(error.kind == .notFound)
        // Under the table, why: once a plugin.
        #expect(table.failureLines == ["plugins that do not load:", "  gone: \(error.description)"])
    }

    @Test func validationReportGathersThePluginsProblems() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
                 "routes": [{"request": "about", "plugin": "settings", "manager": "About"}],
                 "services": [{"plugin": "settings", "service": "Clock"}]}
                """)

        let report = ValidationReport(path: path, searchPath: { _ in PluginSearchPath([BuildProducts.directory]) })

        #expect(!report.isValid)
        #expect(!report.isMissingInput)
        #expect(report.manifestErrors.isEmpty)
        #expect(report.pluginErrors.map(\.kind) == [.unknownService])
    }

    @Test func validationReportOfAMissingManifestIsMissingInput() {
        let report = ValidationReport(path: "/nonexistent/app.json", searchPath: { _ in PluginSearchPath([]) })

        #expect(report.manifest == nil)
        #expect(report.isMissingInput)
        #expect(report.problems == ["/nonexistent/app.json: manifest file not found"])
    }
}
