import FlowHost
import FlowKit
import FlowManifest
import Glibc
import PluginLoading

/// How long a hot swap takes, from a rebuilt library landing (renamed into place, as a linker does) to
/// the first request served by the new generation, with the real inotify watcher.
@MainActor
enum SwapBenchmark {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The swap times in milliseconds, one per swap.
    static func run(swaps: Int, buildDirectory: String) async throws -> [Double] {
        var generations: [[UInt8]] = []
        for product in ["GreeterPluginV1", "GreeterPluginV2"] {
            generations.append(try read(buildDirectory + "/lib\(product).so"))
        }
        let directory = try temporaryDirectory()
        try install(generations[0], in: directory)
        let manifest = try Manifest.parse(
            #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeter.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}]}"#,
            path: directory + "/bench.json")
        let host = Host(manifest: manifest, searchPath: PluginSearchPath([directory]), versioned: true)
        host.start()
        host.coordinator.requestCoordination("greet", from: .app)
        // The request goes as soon as the host says the reload is done, from its listener: the clock stops
        // when the new generation has served it, not after this task has also been woken to send it (about
        // 40 µs of the benchmark's own).
        let (reloads, continuation) = AsyncStream<Served?>.makeStream()
        host.onEvent = { [weak host] event in
            if case .flow = event { return }
            guard let host, case .pluginReloaded(_, let generation, _, _, _) = event else {
                continuation.yield(nil)
                return
            }
            host.coordinator.requestCoordination("greet", from: .app)
            let version = host.coordinator.router.top?.content["version"]
            continuation.yield(Served(generation: generation, version: version, at: .now))
        }
        try host.watch()
        defer { host.stop() }

        var times: [Double] = []
        var iterator = reloads.makeAsyncIterator()
        for swap in 1...swaps {
            // The clock starts at the rename, as the bound says: writing the new build is the linker's time.
            // The rename is done off the main actor, as a linker does it from another process: the host can
            // start the reload as soon as inotify reports it, before the rename call has returned. So the clock
            // stops at the request served, whether or not the renaming task has been heard back from by then:
            // waiting for it first timed the wake-up of this task after the rename, not the swap (a linker
            // tells the host nothing).
            let staging = try stage(generations[swap % 2], in: directory)
            let renamed = Task.detached {
                let landed = ContinuousClock.now
                do {
                    try rename(staging, in: directory)
                } catch {
                    continuation.finish()
                    throw error
                }
                return landed
            }
            guard case let served?? = await iterator.next() else {
                _ = try await renamed.value
                throw Failure(description: "swap \(swap) was not reloaded")
            }
            guard served.version == .number(Double(swap % 2 + 1)), served.generation == swap + 1 else {
                throw Failure(description: "swap \(swap): the request was not served by the new generation")
            }
            times.append((served.at - (try await renamed.value)).milliseconds)
        }
        return times
    }

    /// The request the host's listener sent as it heard a reload: the generation reloaded, the version the
    /// request was served with, and when. The stream carries `nil` for any other event but a flow event.
    struct Served {
        var generation: Int
        var version: JSONValue?
        var at: ContinuousClock.Instant
    }

    /// A new directory under /tmp.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/flowbench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        return String(cString: made)
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rbe") else { throw Failure(description: "\(path) is missing") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[..<count] }
        return bytes
    }

    /// Puts `bytes` in place as `libGreeter.so`, as a linker does: written beside, then renamed over.
    static func install(_ bytes: [UInt8], in directory: String) throws {
        try rename(try stage(bytes, in: directory), in: directory)
    }

    /// Writes `bytes` beside `libGreeter.so`; returns the file's path.
    static func stage(_ bytes: [UInt8], in directory: String) throws -> String {
        let staging = directory + "/libGreeter.so.tmp"
        guard let file = fopen(staging, "wbe") else { throw Failure(description: "cannot write \(staging)") }
        let written = fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        guard written == bytes.count else { throw Failure(description: "cannot write \(staging)") }
        return staging
    }

    /// Renames `staging` over `libGreeter.so`.
    nonisolated static func rename(_ staging: String, in directory: String) throws {
        guard Glibc.rename(staging, directory + "/libGreeter.so") == 0 else {
            throw Failure(description: "cannot install libGreeter.so")
        }
    }
}
