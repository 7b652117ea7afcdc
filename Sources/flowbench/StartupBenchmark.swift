import FlowHost
import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading

/// Starting with many plugins against fewer: `flowhost run` to ready, lazily (only the start request's plugin
/// is loaded) or eagerly (every plugin probed, through the registry cache, and loaded).
///
/// Each plugin is its own library (``distinctLibraries(_:in:buildDirectory:)``: copies of the welcome plugin
/// under distinct names), so that each has its own entry in the registry cache, as in a real app; the
/// manifest's start request loads the first one, so that the first screen pays for a probe as it does in use.
///
/// ``run(flowhost:manifest:script:cacheDirectory:arguments:)`` times the whole command: the process starts,
/// reads and parses the manifest, checks that the plugins are built, builds the host (registry, routes,
/// experiments), starts it, serves the start request, runs an empty script and exits. ``start(path:searchPath:)``
/// times the part that grows with the plugins, in this process: reading the manifest to a started host.
@MainActor
enum StartupBenchmark {
    /// `count` copies of the welcome plugin's library in `directory/plugins`, `libWelcome0.so` and on (the
    /// ones there already kept), each a file of its own: their paths.
    static func distinctLibraries(_ count: Int, in directory: String, buildDirectory: String) throws -> [String] {
        let plugins = directory + "/plugins"
        guard mkdir(plugins, 0o700) == 0 || errno == EEXIST else {
            throw SwapBenchmark.Failure(description: "cannot make \(plugins)")
        }
        let bytes = try SwapBenchmark.read(buildDirectory + "/libWelcomePlugin.so")
        return try (0..<count).map { index in
            let path = plugins + "/libWelcome\(index).so"
            if access(path, F_OK) != 0 { try write(bytes, to: path, mode: 0o755) }
            return path
        }
    }

    /// A manifest file in `directory` declaring one plugin for each of `libraries`, with one route to each and
    /// the first route as its start request; named after `name`.
    static func manifest(libraries: [String], in directory: String, name: String) throws -> String {
        let declared = libraries.enumerated().map { #""p\#($0.offset)": "\#($0.element)""# }
        let routes = libraries.indices.map { #"{"request": "r\#($0)", "plugin": "p\#($0)", "manager": "Launch"}"# }
        let text = """
            {"manifestVersion": 1, "plugins": {\(declared.joined(separator: ", "))},
             "routes": [\(routes.joined(separator: ",\n"))], "start": ["r0"]}
            """
        let path = directory + "/\(name).json"
        try write(Array(text.utf8), to: path, mode: 0o644)
        return path
    }

    /// A manifest file in `directory` declaring `plugins` distinct plugins (``distinctLibraries(_:in:buildDirectory:)``).
    static func manifest(plugins: Int, in directory: String, buildDirectory: String) throws -> String {
        let libraries = try distinctLibraries(plugins, in: directory, buildDirectory: buildDirectory)
        return try manifest(libraries: libraries, in: directory, name: "plugins\(plugins)")
    }

    private static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw SwapBenchmark.Failure(description: "cannot write \(path)") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw SwapBenchmark.Failure(description: "cannot write \(path)") }
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

    /// Microseconds from starting `flowhost run manifest --script script --quiet` (`script` empty, so that
    /// the run ends once the host is ready) to its exit, with `cacheDirectory` as `XDG_CACHE_HOME`.
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

    /// Removes `directory` and everything in it: the copies of the plugin take 100 MB for 1,000.
    static func removeDirectory(_ directory: String) {
        guard let stream = opendir(directory) else { return }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = String(decoding: directoryEntryName(entry), as: UTF8.self)
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(stream)
        for name in names {
            let path = directory + "/" + name
            var status = stat()
            if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                removeDirectory(path)
            } else {
                unlink(path)
            }
        }
        rmdir(directory)
    }

    /// An empty script in `directory`.
    static func emptyScript(in directory: String) throws -> String {
        let path = directory + "/empty.flow"
        guard let file = fopen(path, "wbe") else { throw SwapBenchmark.Failure(description: "cannot write \(path)") }
        fclose(file)
        return path
    }
}
