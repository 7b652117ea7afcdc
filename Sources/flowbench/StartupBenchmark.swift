import FlowHost
import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading

/// Starting lazily with many declared plugins against one, as the bound says: `flowhost run` to ready.
/// No plugin is loaded, as none is used yet; what a start request loads would cost the same either way.
///
/// ``run(flowhost:manifest:script:cacheDirectory:)`` times the whole command: the process starts, reads and
/// parses the manifest, checks that the plugins are built, builds the host (registry, routes, experiments),
/// starts it, runs an empty script and exits. ``start(path:searchPath:)`` times the part that grows with the
/// plugins, in this process: reading the manifest to a started host.
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

    /// Microseconds from starting `flowhost run manifest --script script` (`script` empty, so that the run
    /// ends once the host is ready) to its exit, with `cacheDirectory` as `XDG_CACHE_HOME`.
    static func run(flowhost: String, manifest: String, script: String, cacheDirectory: String) throws -> Double {
        let launch = ProcessLaunch(
            executable: flowhost, arguments: ["run", manifest, "--script", script, "--quiet"],
            environment: ["XDG_CACHE_HOME=\(cacheDirectory)", "SWIFT_BACKTRACE=enable=no"],
            actions: [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].map { .open($0, path: "/dev/null", flags: O_RDWR) })
        let clock = ContinuousClock()
        let started = clock.now
        let pid: pid_t
        do {
            pid = try launch.start()
        } catch {
            throw SwapBenchmark.Failure(description: "cannot start \(flowhost): \(error)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let elapsed = clock.now - started
        guard status == 0 else {
            throw SwapBenchmark.Failure(description: "flowhost run \(manifest) failed (wait status \(status))")
        }
        return elapsed.nanoseconds / 1e3
    }

    /// An empty script in `directory`.
    static func emptyScript(in directory: String) throws -> String {
        let path = directory + "/empty.flow"
        guard let file = fopen(path, "wb") else { throw SwapBenchmark.Failure(description: "cannot write \(path)") }
        fclose(file)
        return path
    }
}
