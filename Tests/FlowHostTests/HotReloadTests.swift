import FlowKit
import Glibc
import Synchronization
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import HostSupport
@testable import PluginLoading

/// Live reload with two real generations of one plugin (the GreeterPlugin fixtures), swapped in a
/// temporary directory while a host runs.
@MainActor
struct HotReloadTests {
    @Test func nextRequestUsesTheNewGenerationWhileAnInFlightManagerFinishesOnTheOld() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let first = try #require(host.coordinator.router.top)
        #expect(first.content["version"] == 1)

        try lab.install("GreeterPluginV2")
        #expect(host.reloadPlugin("greeter").isReloaded)
        #expect(host.coordinator.requestCoordination("greet", from: "greeting").isHandled)

        #expect(host.coordinator.router.top?.content["version"] == 2)
        try first.perform("complete")
        #expect(first.content["completedBy"] == 1, "the manager started before the swap ran its own code")
        #expect(host.registry.images(of: "greeter") == 2)
        #expect(host.registry.leakedImages == 1)
    }

    @Test func reloadingAnUnchangedLibraryLoadsNothing() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)

        let event = host.reloadPlugin("greeter")

        guard case .pluginUnchanged = event else { throw TestFailure("expected unchanged, got \(event)") }
        #expect(host.registry.images(of: "greeter") == 1)
    }

    @Test func aReloadWithoutAPinLoadsTheNewBytesEachTimeTheyChange() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)

        var versions: [JSONValue?] = []
        for product in ["GreeterPluginV2", "GreeterPluginV1", "GreeterPluginV2"] {
            try lab.install(product)
            #expect(host.reloadPlugin("greeter").isReloaded)
            host.coordinator.requestCoordination("greet", from: "greeting")
            versions.append(host.coordinator.router.top?.content["version"])
        }

        #expect(versions == [2, 1, 2])
        #expect(host.registry.images(of: "greeter") == 4)
        guard case .pluginUnchanged = host.reloadPlugin("greeter") else { throw TestFailure("expected unchanged") }
    }

    @Test func aPinnedReloadLoadsThePinnedBytesAndRefusesOthers() throws {
        let lab = try SwapLab()
        let pin = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        try lab.writeManifest(
            #"{"manifestVersion": 1, "plugins": {"greeter": {"library": "libGreeter.so", "sha256": "\#(pin)"}}, "#
                + #""pluginPath": ["."], "routes": [\#(lab.routes)]}"#)
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.install("GreeterPluginV2")
        guard case .reloadRefused(_, let error) = host.reloadPlugin("greeter") else {
            throw TestFailure("expected a refusal")
        }
        try lab.install("GreeterPluginV1")
        let forced = host.reloadPlugin("greeter", force: true)

        #expect(error.kind == .checksumMismatch)
        #expect(forced.isReloaded)
        #expect(host.registry.images(of: "greeter") == 2)
    }

    @Test func brokenNewLibraryIsRefusedAndTheOldGenerationKeepsServing() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)

        try lab.write(Array("not a library".utf8))
        let event = host.reloadPlugin("greeter")

        guard case .reloadRefused(_, let error) = event else { throw TestFailure("expected a refusal, got \(event)") }
        #expect(error.kind == .notELF)
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 1)
    }

    @Test func newGenerationLackingARoutedManagerIsRefused() throws {
        let lab = try SwapLab(
            initial: "GreeterPluginV2", extraRoute: #"{"request": "bye", "plugin": "greeter", "manager": "Farewell"}"#)
        let host = try lab.host()
        host.coordinator.requestCoordination("bye", from: .app)

        try lab.install("GreeterPluginV1")
        let event = host.reloadPlugin("greeter")

        guard case .reloadRefused(_, let error) = event else { throw TestFailure("expected a refusal, got \(event)") }
        #expect(
            error.message
                == "the new generation of plugin 'greeter' exports no manager 'Farewell', which is still routed to it; it exports: Composer, Greeter, Poller; the previous generation keeps serving"
        )
        #expect(host.coordinator.requestCoordination("bye", from: .app).isHandled)
    }

    @Test func theCapRefusesFurtherReloads() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.registry.maxImagesPerPlugin = 3
        host.coordinator.requestCoordination("greet", from: .app)

        var events: [HostEvent] = []
        for product in ["GreeterPluginV2", "GreeterPluginV1", "GreeterPluginV2"] {
            try lab.install(product)
            events.append(host.reloadPlugin("greeter"))
        }

        #expect(events[0].isReloaded && events[1].isReloaded)
        guard case .reloadRefused(_, let error) = events[2] else {
            throw TestFailure("expected a refusal, got \(events[2])")
        }
        #expect(
            error.message
                == "plugin 'greeter' has been loaded 3 times, the limit of a run without --supervise; run with --supervise to go on at the same screen past it, or restart flowhost to give back the memory of old generations"
        )
        #expect(
            host.statsLines.contains {
                $0.hasPrefix("plugins: 2 reloads, 1 refused, 2 images no longer serving, still mapped")
            })
    }

    @Test func movingTheLibraryToAnotherFileReloadsItWithinTheCap() throws {
        // Each move reloads the plugin from the file it moves to; the images its earlier files opened stay
        // mapped and count.
        let lab = try SwapLab()
        let host = try lab.host()
        host.registry.maxImagesPerPlugin = 2
        host.coordinator.requestCoordination("greet", from: .app)
        _ = try lab.directory.file("libB.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        var events: [HostEvent] = []
        host.onEvent = { event in
            if case .flow = event { return }
            events.append(event)
        }

        for library in ["libB.so", "libGreeter.so"] {
            try lab.writeManifest(
                lab.manifest(routes: lab.routes).replacing("libGreeter.so", with: library))
            host.reloadManifest()
        }

        #expect(events.count == 4, "\(events)")
        #expect(events[1].isReloaded, "the second image: within the cap")
        guard case .reloadRefused(_, let error) = events[3] else {
            throw TestFailure("expected a refusal, got \(events[3])")
        }
        #expect(error.message.hasPrefix("plugin 'greeter' has been loaded 2 times, the limit"), "\(error.message)")
        // The generation the second file loaded keeps serving.
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.registry.servingGeneration(of: "greeter") == 2)
    }

    @Test func invalidManifestEditKeepsTheRoutesInForce() throws {
        let lab = try SwapLab()
        let host = try lab.host()

        try lab.writeManifest(
            #"{"manifestVersion": 1, "plugins": {}, "routes": [{"request": "greet", "plugin": "gone", "manager": "X"}]}"#
        )
        let event = host.reloadManifest()

        guard case .manifestRejected(let errors) = event else {
            throw TestFailure("expected a rejection, got \(event)")
        }
        #expect(errors.errors.map(\.kind) == [.undeclaredPlugin])
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func validManifestEditSwitchesTheRoutes() throws {
        let lab = try SwapLab()
        let host = try lab.host()

        try lab.writeManifest(lab.manifest(routes: #"{"request": "hello", "plugin": "greeter", "manager": "Greeter"}"#))
        let event = host.reloadManifest()

        guard case .manifestReloaded = event else { throw TestFailure("expected a reload, got \(event)") }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .unhandled)
        #expect(host.coordinator.requestCoordination("hello", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func fourSubmittersAndTwentySwapsLoseNoRequest() async throws {
        let lab = try SwapLab(route: #"{"request": "greet", "plugin": "greeter", "manager": "Greeter"}"#)
        let host = try lab.host()
        var outcomes: [String: Int] = [:]
        let (served, serve) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        host.onEvent = { event in
            if case .flow(.handled(_, _, let manager, _)) = event {
                outcomes[manager, default: 0] += 1
                serve.yield()
            }
        }
        let coordinator = host.coordinator
        let stop = StopFlag()
        // Each sends at least 250 requests, and goes on until the swaps are done.
        let submitters = Task.detached {
            await withTaskGroup(of: (handled: Int, other: Int).self) { group in
                for submitter in 0..<4 {
                    group.addTask {
                        var counts = (handled: 0, other: 0)
                        while counts.handled + counts.other < 250 || !stop.isSet {
                            let outcome = await coordinator.send(
                                CoordinationRequest("greet"), from: Coordinated("s\(submitter)"))
                            if outcome.isHandled { counts.handled += 1 } else { counts.other += 1 }
                        }
                        return counts
                    }
                }
                var total = (handled: 0, other: 0)
                for await counts in group { total = (total.handled + counts.handled, total.other + counts.other) }
                return total
            }
        }
        var swaps = 0
        var servedAfterSwap = served.makeAsyncIterator()
        for round in 0..<20 {
            try lab.install(round.isMultiple(of: 2) ? "GreeterPluginV2" : "GreeterPluginV1")
            if host.reloadPlugin("greeter").isReloaded { swaps += 1 }
            // Every generation serves a request before the next swap, however the threads are scheduled.
            let before = outcomes.values.reduce(0, +)
            while outcomes.values.reduce(0, +) == before { await servedAfterSwap.next(isolation: #isolation) }
        }
        stop.set()
        let total = await submitters.value

        #expect(swaps == 20)
        let versions = Set(host.coordinator.router.modules.compactMap { $0.content["version"]?.int })
        #expect(versions == [1, 2], "requests were served by both generations while they swapped")
        #expect(total.handled >= 1_000)
        #expect(total.other == 0)
        #expect(outcomes["greeter.Greeter"] == total.handled, "every request sent was handled once")
    }

    @Test func watchedLibraryRenamedIntoPlaceIsReloaded() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        let reloads = try HostEventCollector(host)
        defer { host.stop() }

        try lab.install("GreeterPluginV2")
        let event = await reloads.next()

        #expect(event?.isReloaded == true)
        host.coordinator.requestCoordination("greet", from: .app)
        #expect(host.coordinator.router.top?.content["version"] == 2)
    }
}

extension HotReloadTests {
    @Test func aManifestReloadedByCommandWhileWatchingHasItsNewLibrariesWatched() async throws {
        let lab = try SwapLab()
        let moved = lab.directory.path + "/libGreeterMoved.so"
        let host = try lab.host()
        // Not loaded yet, greeter's changed library is checked, not loaded: what says it was seen.
        var changes: [String] = []
        host.onEvent = { event in
            if case .unloadedLibraryChanged(_, let file, nil) = event { changes.append(file) }
        }
        // The manifest is edited before the watch starts, so that only the command reloads it.
        _ = try lab.directory.file("libGreeterMoved.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        try lab.writeManifest(lab.manifest(routes: lab.routes).replacing("libGreeter.so", with: "libGreeterMoved.so"))
        try host.watch()
        defer { host.stop() }
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the manifest was refused") }

        let staging = try lab.directory.file("moved.tmp", containing: BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        #expect(rename(staging, moved) == 0)
        for _ in 0..<200 where changes.isEmpty { try await Task.sleep(for: .milliseconds(10)) }

        #expect(changes == [moved], "the library the reloaded manifest names is watched")
        host.coordinator.requestCoordination("greet", from: .app)
        #expect(host.coordinator.router.top?.content["version"] == 2)
    }
}

// MARK: - Test Helpers

extension HostEvent {
    var isReloaded: Bool {
        if case .pluginReloaded = self { return true }
        return false
    }
}

/// A temporary directory holding a manifest and `libGreeter.so`, a copy of one generation of the fixture.
@MainActor
struct SwapLab {
    let directory: TemporaryDirectory
    let routes: String

    init(
        initial: String = "GreeterPluginV1",
        route: String = #"{"request": "greet", "plugin": "greeter", "manager": "Greeter"}"#,
        extraRoute: String? = nil
    ) throws {
        directory = try TemporaryDirectory()
        routes = [route, extraRoute].compactMap { $0 }.joined(separator: ", ")
        try install(initial)
        try writeManifest(manifest(routes: routes))
    }

    var library: String { directory.path + "/libGreeter.so" }
    var manifestPath: String { directory.path + "/lab.json" }

    func manifest(routes: String, name: String? = nil) -> String {
        #"{"manifestVersion": 1, "# + (name.map { #""name": "\#($0)", "# } ?? "")
            + #""plugins": {"greeter": "libGreeter.so"}, "pluginPath": ["."], "routes": ["# + routes + "]}"
    }

    /// Writes the manifest again named `mark`, which routes nothing differently: the watch says its reload after
    /// what it saw of every change made before. (Of a manifest written again unchanged, it says nothing.)
    func writeMark(_ mark: String) throws {
        try writeManifest(manifest(routes: routes, name: mark))
    }

    func host() throws -> Host {
        let host = Host(
            manifest: try Manifest.load(path: manifestPath), searchPath: PluginSearchPath([directory.path]),
            versioned: true)
        host.start()
        return host
    }

    /// Puts a build of `product` in place as a linker does: written beside, then renamed over.
    func install(_ product: String) throws {
        try write(BuildProducts.bytes(of: "lib\(product).so"))
    }

    func write(_ bytes: [UInt8]) throws {
        let staging = try directory.file("libGreeter.so.tmp", containing: bytes)
        guard rename(staging, library) == 0 else { throw TestFailure("rename failed") }
    }

    func writeManifest(_ text: String) throws {
        let staging = try directory.file("lab.json.tmp", containing: text)
        guard rename(staging, manifestPath) == 0 else { throw TestFailure("rename failed") }
    }
}

/// Tells the submitters of ``HotReloadTests/fourSubmittersAndTwentySwapsLoseNoRequest()`` to finish.
private final class StopFlag: Sendable {
    private let value = Atomic(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() { value.store(true, ordering: .releasing) }
}
