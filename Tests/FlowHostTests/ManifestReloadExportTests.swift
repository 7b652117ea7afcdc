import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import PluginLoading

/// A manifest edit that names a manager or service its plugin does not export changes nothing: the reload
/// is rejected with the place of each name in the file, as `validate` would have refused the edit, whether
/// the plugin is loaded already or only probed.
@MainActor
struct ManifestReloadExportTests {
    static let misspelt = #"""
        {"manifestVersion": 1, "plugins": {"greeter": "libGreeter.so"}, "pluginPath": ["."],
         "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"},
                    {"request": "hello", "plugin": "greeter", "manager": "Gretter"}],
         "services": [{"plugin": "greeter", "service": "Stuk"}]}
        """#

    func expectRejection(of event: HostEvent, in lab: SwapLab) throws {
        guard case .manifestRejected(let errors) = event else {
            throw TestFailure("expected a rejection, got \(event)")
        }
        #expect(
            errors.errors.map(\.description) == [
                "\(lab.manifestPath): routes[1].manager: plugin 'greeter' exports no manager 'Gretter' (did you mean 'Greeter'?); it exports: Composer, Greeter, Poller",
                "\(lab.manifestPath): services[0].service: plugin 'greeter' exports no service 'Stuk' (did you mean 'Stuck'?); it exports: Stuck",
            ])
        #expect(errors.errors.map(\.kind) == [.unknownManager, .unknownService])
    }

    @Test func anEditNamingWhatALoadedPluginLacksKeepsTheRoutesInForce() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))

        try lab.writeManifest(Self.misspelt)
        try expectRejection(of: host.reloadManifest(), in: lab)

        #expect(host.coordinator.requestCoordination("hello", from: .app) == .unhandled, "the edit changed nothing")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func anEditNamingWhatAPluginNotYetLoadedLacksIsFoundThroughItsProbe() throws {
        let lab = try SwapLab()
        let cache = CacheDirectory(path: lab.directory.path + "/cache")
        let host = Host(
            manifest: try Manifest.load(path: lab.manifestPath), searchPath: PluginSearchPath([lab.directory.path]),
            prober: PluginProber(
                executable: try BuildProducts.path(of: "flowhost"), cache: ProbeCache(directory: cache),
                quarantine: PluginQuarantine(directory: cache)))
        host.start()

        try lab.writeManifest(Self.misspelt)
        try expectRejection(of: host.reloadManifest(), in: lab)

        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("checking the edit loaded the plugin")
        }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func theShellSaysTheEditWasRejectedAndWhy() throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        #expect(shell.execute("send greet").status == .ok)

        try lab.writeManifest(Self.misspelt)
        let reply = shell.execute("reload manifest")

        #expect(reply.status == .error("manifest rejected: 2 problems"))
        #expect(
            reply.lines.prefix(3) == [
                "manifest edit rejected, the routes in force are unchanged:",
                "\(lab.manifestPath): routes[1].manager: plugin 'greeter' exports no manager 'Gretter' (did you mean 'Greeter'?); it exports: Composer, Greeter, Poller",
                "\(lab.manifestPath): services[0].service: plugin 'greeter' exports no service 'Stuk' (did you mean 'Stuck'?); it exports: Stuck",
            ])
    }

    @Test func validateNamesTheSamePlacesAsAReload() throws {
        let lab = try SwapLab()
        try lab.writeManifest(Self.misspelt)
        let expected = [
            "\(lab.manifestPath): routes[1].manager: plugin 'greeter' exports no manager 'Gretter' (did you mean 'Greeter'?); it exports: Composer, Greeter, Poller",
            "\(lab.manifestPath): services[0].service: plugin 'greeter' exports no service 'Stuk' (did you mean 'Stuck'?); it exports: Stuck",
        ]

        let run = try Subprocess.flowhost(
            ["validate", lab.manifestPath], environment: ["XDG_CACHE_HOME": lab.directory.path + "/cache"])
        let registry = PluginRegistry(
            manifest: try Manifest.load(path: lab.manifestPath), searchPath: PluginSearchPath([lab.directory.path]))
        let inProcess = Host.check(manifest: try Manifest.load(path: lab.manifestPath), registry: registry)

        #expect(run.status == 65)
        #expect(run.errorLines == expected + ["\(lab.manifestPath): 2 problems found"])
        #expect(inProcess.map(\.description) == expected, "validate without a prober, and run --eager")
    }
}
