import FlowHost
import FlowKit
import FlowManifest
import Glibc
import PluginLoading

/// How long a reload waits for the main actor while 4 tasks submit requests as fast as they can: the
/// latency from asking for the reload (off the main actor, as the file watcher does) to its end.
///
/// The submitted requests find no route, so that nothing piles up on the screen however many are routed;
/// each task waits for its 65th request's outcome (`send`) before submitting more, so that the inbox stays
/// bounded while the main actor never runs out of requests to route.
@MainActor
enum ReloadUnderLoadBenchmark {
    /// Every reload's latency in milliseconds.
    static func run(reloads: Int, buildDirectory: String) async throws -> [Double] {
        let directory = try SwapBenchmark.temporaryDirectory()
        try SwapBenchmark.install(try SwapBenchmark.read(buildDirectory + "/libGreeterPluginV1.so"), in: directory)
        let manifest = try Manifest.parse(
            #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeter.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}]}"#,
            path: directory + "/bench.json")
        let host = Host(manifest: manifest, searchPath: PluginSearchPath([directory]))
        host.start()
        host.coordinator.requestCoordination("greet", from: .app)
        let coordinator = host.coordinator
        let submitters = (0..<4).map { _ in
            Task.detached {
                let request = CoordinationRequest("nowhere")
                while !Task.isCancelled {
                    for _ in 0..<64 { coordinator.submit(request, from: .app) }
                    await coordinator.send(request, from: .app)
                }
            }
        }
        defer { for submitter in submitters { submitter.cancel() } }
        var latencies: [Double] = []
        for _ in 0..<reloads {
            latencies.append(
                try await Task.detached {
                    let clock = ContinuousClock()
                    let asked = clock.now
                    let event = await MainActor.run { host.reloadPlugin("greeter", force: true) }
                    guard case .pluginReloaded = event else {
                        throw SwapBenchmark.Failure(description: "reload under load: \(event)")
                    }
                    return (clock.now - asked).milliseconds
                }.value)
        }
        return latencies
    }
}
