import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// A plugin listed in a manifest's `plugins`, in a manifest that discovers nothing, is held to its
/// `requires` as a discovered one is: refused with the same line when it first loads, before any of its code
/// runs here, and by `validate`.
@MainActor
struct ListedRequirementTests {
    /// A manifest in a temporary directory listing `plugins` (name to library) with `routes`, and a private
    /// probe cache, so that probes run as `flowhost run` has them run.
    @MainActor
    struct Lab {
        let directory: TemporaryDirectory
        let prober: PluginProber
        let path: String

        init(plugins: [String: String], routes: [(request: String, plugin: String, manager: String)]) throws {
            directory = try TemporaryDirectory()
            let cache = CacheDirectory(path: directory.path + "/cache")
            prober = PluginProber(
                executable: try BuildProducts.path(of: "flowhost"), cache: ProbeCache(directory: cache),
                quarantine: PluginQuarantine(directory: cache))
            let listed = plugins.sorted { $0.key < $1.key }.map { #""\#($0.key)": "\#($0.value)""# }
            let routed = routes.map {
                #"{"request": "\#($0.request)", "plugin": "\#($0.plugin)", "manager": "\#($0.manager)"}"#
            }
            path = try directory.file(
                "app.json",
                containing:
                    #"{"manifestVersion": 1, "plugins": {\#(listed.joined(separator: ", "))}, "routes": [\#(routed.joined(separator: ", "))]}"#
            )
        }

        /// A started host on the manifest, probing first unless `trusting` (`--trust`).
        func host(trusting: Bool = false) throws -> Host {
            let host = Host(
                manifest: try Manifest.load(path: path), searchPath: PluginSearchPath([BuildProducts.directory]),
                prober: trusting ? nil : prober)
            host.start()
            return host
        }

        func validate() -> ValidationReport {
            ValidationReport(
                path: path, searchPath: { _ in PluginSearchPath([BuildProducts.directory]) }, prober: prober)
        }
    }

    static let missingAuth =
        #"plugin 'settings' requires plugin 'auth' >=1.0 <2, which is not there; add it to a discovered directory or to "plugins""#

    @Test(arguments: [false, true])
    func aListedPluginWithoutWhatItRequiresIsRefusedAndTheRestRun(trusting: Bool) throws {
        let lab = try Lab(
            plugins: ["settings": "libSettingsPlugin.so", "welcome": "libWelcomePlugin.so"],
            routes: [("settings.about", "settings", "About"), ("launch", "welcome", "Launch")])
        let host = try lab.host(trusting: trusting)

        guard case .failed(let error) = host.coordinator.requestCoordination("settings.about", from: .app) else {
            throw TestFailure("settings.about did not fail")
        }
        let settings = try BuildProducts.path(of: "libSettingsPlugin.so")
        #expect(error.message == "\(settings): \(Self.missingAuth)")
        guard case .failed(let kept)? = host.registry.status(of: "settings") else {
            throw TestFailure("settings is not refused")
        }
        #expect(kept.kind == .unmetRequirement)
        #expect(host.coordinator.requestCoordination("launch", from: .app) == .handled(manager: "welcome.Launch"))
    }

    @Test func aListedPluginLoadsWhatItRequiresFirst() throws {
        let lab = try Lab(
            plugins: ["settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"],
            routes: [("settings.about", "settings", "About")])
        let host = try lab.host()

        #expect(host.registry.status(of: "auth").map { if case .notLoaded = $0 { true } else { false } } == true)
        #expect(
            host.coordinator.requestCoordination("settings.about", from: .app) == .handled(manager: "settings.About"))
        #expect(host.registry.status(of: "auth").map { if case .loaded = $0 { true } else { false } } == true)
    }

    @Test func aRefusalOfWhatAPluginRequiresRefusesThePluginWithTheReason() throws {
        let lab = try Lab(
            plugins: ["express": "libExpressPlugin.so", "catalog": "libCatalogPlugin.so"],
            routes: [])
        let host = try lab.host()

        let express = try BuildProducts.path(of: "libExpressPlugin.so")
        let catalog = try BuildProducts.path(of: "libCatalogPlugin.so")
        #expect(
            throws: PluginLoadError(
                file: express, kind: .unmetRequirement,
                message:
                    #"plugin 'express' requires plugin 'catalog' ^1.0, which is refused: plugin 'catalog' requires plugin 'auth' ^1.0, which is not there; add it to a discovered directory or to "plugins""#
            )
        ) { try host.registry.load("express") }
        guard case .failed(let refusal)? = host.registry.status(of: "catalog") else {
            throw TestFailure("catalog is not refused")
        }
        #expect(refusal.file == catalog)
    }

    @Test func pluginsListedUnderEachOthersNamesAreACycleAndNeitherLoads() throws {
        // The express plugin requires `catalog`, the catalog plugin `auth`: listed as each other, they close a
        // cycle.
        let lab = try Lab(
            plugins: ["auth": "libExpressPlugin.so", "catalog": "libCatalogPlugin.so"], routes: [])
        let host = try lab.host()

        let cycle = "plugins 'auth' and 'catalog' require each other (auth -> catalog -> auth); neither is loaded"
        do {
            try host.registry.load("catalog")
            Issue.record("catalog loaded")
        } catch {
            #expect(error.kind == .unmetRequirement)
            #expect(error.message == "plugin 'catalog' requires plugin 'auth' ^1.0, which is refused: \(cycle)")
        }
        guard case .failed(let refusal)? = host.registry.status(of: "auth") else {
            throw TestFailure("auth is not refused")
        }
        #expect(refusal.kind == .requirementCycle)
        #expect(refusal.message == cycle)

        #expect(lab.validate().problems.contains { $0.hasSuffix(": " + cycle) })
    }

    @Test func validateSaysWhatALoadWouldRefuse() throws {
        let lab = try Lab(
            plugins: ["settings": "libSettingsPlugin.so"], routes: [("settings.about", "settings", "About")])

        let report = lab.validate()

        let settings = try BuildProducts.path(of: "libSettingsPlugin.so")
        #expect(report.problems == ["\(settings): \(Self.missingAuth)"])
    }

    @Test func theCommandLineRefusesTheRequestAndValidateExitsWithTheProblem() throws {
        let lab = try Lab(
            plugins: ["settings": "libSettingsPlugin.so"], routes: [("settings.about", "settings", "About")])
        let script = try lab.directory.file("s.flow", containing: "send settings.about\n")
        let settings = try BuildProducts.path(of: "libSettingsPlugin.so")
        let cache = ["XDG_CACHE_HOME": lab.directory.path + "/xdg"]

        let run = try Subprocess.flowhost(
            ["run", lab.path, "--plugin-path", BuildProducts.directory, "--script", script], environment: cache)
        #expect(run.status == 1)
        #expect(
            run.outputLines == [
                "  top: (nothing)",
                "> send settings.about",
                "",
            ])
        #expect(
            run.errorLines == ["\(script):1: error: settings.about failed: \(settings): \(Self.missingAuth)"],
            "said once, as the command's error")

        let validate = try Subprocess.flowhost(
            ["validate", lab.path, "--plugin-path", BuildProducts.directory], environment: cache)
        #expect(validate.status == 65)
        #expect(validate.errorLines.first == "\(settings): \(Self.missingAuth)")
    }
}
