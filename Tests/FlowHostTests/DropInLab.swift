import Glibc
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// A temporary directory with `plugins.d`, a manifest discovering it, and a private probe cache and
/// quarantine: copies of built libraries are dropped in and taken out while a host runs.
@MainActor
struct DropInLab {
    let directory: TemporaryDirectory
    let prober: PluginProber

    /// A lab whose manifest is `{"manifestVersion": 1, "discover": ["plugins.d"]}` with `members` added.
    init(members: String = "") throws {
        directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugins.d", 0o755) == 0)
        let cache = CacheDirectory(path: directory.path + "/cache")
        prober = PluginProber(
            executable: try BuildProducts.path(of: "flowhost"), cache: ProbeCache(directory: cache),
            quarantine: PluginQuarantine(directory: cache))
        try writeManifest(members: members)
    }

    var plugins: String { directory.path + "/plugins.d" }
    var manifestPath: String { directory.path + "/app.json" }

    func writeManifest(members: String) throws {
        let text = #"{"manifestVersion": 1, "discover": ["plugins.d"]"# + (members.isEmpty ? "" : ", " + members) + "}"
        let staging = try directory.file(".app.json.tmp", containing: text)
        try #require(rename(staging, manifestPath) == 0)
    }

    /// Makes the lab's manifest one that lists the greeter plugin (`plugins.d/libGreeter.so`, or `library`)
    /// rather than discovering it, and routes `request` to its `manager`.
    func writeListingGreeter(routing request: String, to manager: String, library: String = "libGreeter.so") throws {
        _ = try directory.file(
            "app.json",
            containing:
                #"{"manifestVersion": 1, "pluginPath": ["plugins.d"], "plugins": {"greeter": "\#(library)"}, "#
                + #""routes": [{"request": "\#(request)", "plugin": "greeter", "manager": "\#(manager)"}]}"#)
    }

    /// Makes the lab's manifest one that lists the auth plugin (`plugins.d/libAuthPlugin.so`, or `library`) rather
    /// than discovering it, routes its sign-in, and starts its session when `startingItsSession`.
    /// With `sha256`, the entry pins the library's bytes.
    func writeListingAuth(
        library: String = "libAuthPlugin.so", startingItsSession: Bool = false, sha256: String? = nil
    ) throws {
        let services = startingItsSession ? #", "services": [{"plugin": "auth", "service": "Session"}]"# : ""
        let entry = sha256.map { #"{"library": "\#(library)", "sha256": "\#($0)"}"# } ?? #""\#(library)""#
        _ = try directory.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "pluginPath": ["plugins.d"], "plugins": {"auth": \#(entry)}, "#
                + #""routes": [{"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"}]\#(services)}"#)
    }

    /// Drops a copy of the built `library` into `plugins.d` as `name`, as `cp` would: written in place.
    @discardableResult
    func add(_ library: String, as name: String? = nil) throws -> String {
        try write(try BuildProducts.bytes(of: library), as: name ?? library)
    }

    /// Writes `bytes` into `plugins.d` as `name` in place, as `cp` of any file would.
    /// Close-on-exec, as ``TemporaryDirectory/file(_:containing:)`` says why.
    @discardableResult
    func write(_ bytes: [UInt8], as name: String) throws -> String {
        let path = plugins + "/" + name
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        return path
    }

    /// Puts a copy of the built `library` in place as `name` as a linker does: written beside, renamed over.
    func replace(_ name: String, with library: String) throws {
        let staging = try directory.file(".staging.so", containing: try BuildProducts.bytes(of: library))
        try #require(rename(staging, plugins + "/" + name) == 0)
    }

    func remove(_ name: String) throws {
        try #require(unlink(plugins + "/" + name) == 0)
    }

    func manifest() throws -> Manifest { try Manifest.load(path: manifestPath) }

    /// The manifest a test of `validate` or `run` reads with `members` (deep links, guards, a start): the lab's
    /// own, which discovers `plugins.d`, when `discovering`; else `listed.json` beside it, which lists the
    /// welcome plugin from `plugins.d` and routes `routes` (request to manager) to it.
    func welcomeManifest(
        _ members: String, discovering: Bool, routes: KeyValuePairs<String, String> = ["launch": "Launch"]
    ) throws -> String {
        guard !discovering else { return manifestPath }
        let routed = routes.map { #"{"request": "\#($0.key)", "plugin": "welcome", "manager": "\#($0.value)"}"# }
        return try directory.file(
            "listed.json",
            containing:
                #"{"manifestVersion": 1, "pluginPath": ["plugins.d"], "plugins": {"welcome": "libWelcomePlugin.so"}, "#
                + #""routes": ["# + routed.joined(separator: ", ") + "], " + members + "}")
    }

    /// Runs `flowhost` with `arguments` to completion, with its cache (probes, quarantine) in the lab.
    func flowhost(_ arguments: [String]) throws -> Subprocess {
        try Subprocess.flowhost(arguments, environment: ["XDG_CACHE_HOME": directory.path + "/xdg"])
    }

    /// A host on the lab's manifest, probing through the lab's cache, started. Its search path is the manifest's
    /// `pluginPath`, as `flowhost run`'s begins (without the directories the run adds).
    func host() throws -> Host {
        let manifest = try manifest()
        let host = Host(manifest: manifest, searchPath: PluginSearchPath(manifest.pluginPath), prober: prober)
        host.start()
        return host
    }
}

extension HostEvent {
    /// The plugin a discovery or removal event is about, with its kind: `discovered greeter`.
    var dropIn: String? {
        switch self {
        case .pluginDiscovered(let plugin, _, let routes, let services, _):
            "discovered \(plugin) routes=\(routes.joined(separator: ",")) services=\(services.joined(separator: ","))"
        case .pluginRemoved(let plugin, _, let routes, let services, _):
            "removed \(plugin) routes=\(routes.joined(separator: ",")) services=\(services.joined(separator: ","))"
        case .pluginReloaded(let plugin, let generation, _, _, _): "reloaded \(plugin) \(generation)"
        case .pluginUnchanged(let plugin): "unchanged \(plugin)"
        case .discoveryProblem(let error, _): "problem \(error.kind)"
        default: nil
        }
    }
}
