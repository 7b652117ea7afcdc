import FlowHost
import FlowKit
import Glibc

/// Starting lazily with many declared plugins against one: read and parse the manifest, build the host
/// (registry, routes, experiments) and start its coordinator. No plugin is loaded, as none is used yet;
/// what a start request loads would cost the same either way.
@MainActor
enum StartupBenchmark {
    /// A manifest file in `directory` declaring `plugins` plugins (all the same library, found in
    /// `buildDirectory`), with one route to each.
    static func manifest(plugins: Int, in directory: String, buildDirectory: String) throws -> String {
        let declared = (0..<plugins).map { #""p\#($0)": "\#(buildDirectory)/libWelcomePlugin.so""# }
        let routes = (0..<plugins).map { #"{"request": "r\#($0)", "plugin": "p\#($0)", "manager": "Launch"}"# }
        let text = """
            {"manifestVersion": 1, "plugins": {\(declared.joined(separator: ", "))},
             "routes": [\(routes.joined(separator: ",\n"))]}
            """
        let path = directory + "/plugins\(plugins).json"
        guard let file = fopen(path, "wb") else { throw SwapBenchmark.Failure(description: "cannot write \(path)") }
        defer { fclose(file) }
        _ = Array(text.utf8).withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        return path
    }

    /// Microseconds from reading the manifest at `path` to a started host, best of `rounds`.
    static func start(path: String, searchPath: PluginSearchPath) throws -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        let host = Host(manifest: try Manifest.load(path: path), searchPath: searchPath)
        host.start()
        let elapsed = clock.now - started
        precondition(host.coordinator.isRunning && host.problems.isEmpty)
        return elapsed.nanoseconds / 1e3
    }
}
