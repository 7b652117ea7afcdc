import Foundation
import Glibc
import PluginLoading
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import HostSupport
@testable import PluginLoading

/// The products `swift build` put beside the test binary: the bundled plugins and libFlowKit.so.
enum BuildProducts {
    static var directory: String {
        ProcessInfoLite.executableDirectory() ?? "."
    }

    static func path(of file: String) throws -> String {
        let path = directory + "/" + file
        guard access(path, R_OK) == 0 else { throw TestFailure("\(path) is missing: run `swift build` first") }
        return path
    }

    /// The bytes of a build product, however large (a sanitizer's `flowhost` passes a manifest's 16 MiB).
    static func bytes(of file: String) throws -> [UInt8] {
        try Manifest.readFile(path(of: file), maxSize: PluginCopy.maxLibrarySize)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A fresh directory under `$TMPDIR` (or `/tmp`), removed with the files made in it when released.
final class TemporaryDirectory {
    let path: String
    private var files: [String] = []

    init() throws {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/flowhost-tests.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        path = try #require(made)
    }

    /// Writes a file called `name` into the directory and returns its path.
    ///
    /// The file is opened close-on-exec, as every file a test writes must be: tests run in parallel, and a child
    /// another test starts while it is open would hold it open for writing until it exits, whose close a
    /// watching host then sees as the file written again (`IN_CLOSE_WRITE`), long after the test wrote it.
    func file(_ name: String, containing bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        files.append(file)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        return file
    }

    deinit {
        // Everything in it: tests rename files into place and build packages there.
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension TemporaryDirectory {
    /// A manifest `app.json` whose start request shows the welcome plugin's screen and whose `hangy.spin` holds
    /// the main thread in the hangy plugin's `Spin` manager for good: its path.
    func spinningManifest() throws -> String {
        try hangyManifest(["hangy.spin": "Spin"])
    }

    /// A manifest `app.json` whose start request shows the welcome plugin's screen and that routes each request
    /// of `routes` to its manager of the hangy plugin: its path.
    func hangyManifest(_ routes: KeyValuePairs<String, String>) throws -> String {
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        let routed = routes.map { #", {"request": "\#($0.key)", "plugin": "hangy", "manager": "\#($0.value)"}"# }
        return try file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}\(routed.joined())],
                 "start": ["launch"]}
                """)
    }

    /// Writes `text` to a file called `name` and returns its path.
    func file(_ name: String, containing text: String) throws -> String {
        try file(name, containing: Array(text.utf8))
    }

    /// The environment of a run whose probe cache is the directory's own (`XDG_CACHE_HOME`).
    var cacheEnvironment: [String: String?] { ["XDG_CACHE_HOME": path + "/cache"] }

    /// Records `manifests/demo.json` running `script` (the script's text), quiet, into the trace `name` in the
    /// directory, with ``cacheEnvironment``: the trace's path.
    func demoTrace(_ name: String, running script: String) throws -> String {
        let trace = path + "/" + name
        let scriptFile = try file(name + ".flow", containing: script)
        let recorded = try Subprocess.flowhost(
            ["run", "manifests/demo.json", "--script", scriptFile, "--trace", trace, "--quiet"],
            environment: cacheEnvironment)
        try #require(recorded.status == 0, "\(recorded.standardError)")
        return trace
    }
}

/// The repository's files, found from this source file's path.
enum Repository {
    static let root: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    static func path(_ relative: String) -> String { root + "/" + relative }
}

/// Reads a text file of the repository.
func readText(_ path: String) throws -> String {
    String(decoding: try Manifest.readFile(path), as: UTF8.self)
}

extension FlowHost.Host {
    /// A host on a manifest file of the repository, finding plugins beside the test binary.
    @MainActor
    static func bundled(_ manifest: String, eager: Bool = false) throws -> FlowHost.Host {
        let manifest = try Manifest.load(path: Repository.path(manifest))
        return FlowHost.Host(
            manifest: manifest, searchPath: PluginSearchPath([BuildProducts.directory]), eager: eager,
            discoveryProber: try PluginProber.forTests())
    }

    /// A host on manifest text, finding plugins beside the test binary.
    @MainActor
    static func parsing(_ text: String) throws -> FlowHost.Host {
        let manifest = try Manifest.parse(text, path: Repository.path("manifests/test.json"))
        return FlowHost.Host(
            manifest: manifest, searchPath: PluginSearchPath([BuildProducts.directory]),
            discoveryProber: try PluginProber.forTests())
    }
}

extension PluginProber {
    /// A prober for a host a test makes in its own process: the built `flowhost` probes, with no cache and no
    /// quarantine. Without one, discovery probed with ``standard(timeout:useCache:)``, which runs this very
    /// executable, the test binary: it answered nothing, and each library it probed was quarantined, as having
    /// exited without describing itself, in the cache of the person running the tests.
    static func forTests() throws -> PluginProber {
        PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: nil, quarantine: nil)
    }
}
