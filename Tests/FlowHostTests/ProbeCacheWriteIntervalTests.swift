import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import HostSupport
@testable import PluginLoading

/// A lazy run's first loads write the registry cache about once a second, not once each: each write rewrites
/// the whole file, so a run that first loads a thousand plugins one by one took three times as long with the
/// cache as without it. What is kept pending is written at the end of an input once it is due, and when
/// the run ends.
@MainActor
struct ProbeCacheWriteIntervalTests {
    @Test func lazyFirstLoadsWithinASecondWriteTheRegistryOnceAndTheRestAtTheEndOfADueInput() async throws {
        let lab = try WelcomeLab(plugins: 5)
        let clock = ManualClock()
        let cache = ProbeCache(directory: CacheDirectory(path: lab.temporary.path + "/cache"), now: clock.now)
        let prober = PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: cache, quarantine: nil)
        let shell = HostShell(host: Host(manifest: lab.manifest, searchPath: PluginSearchPath([]), prober: prober))

        for index in 0..<5 { #expect(await shell.perform("send r\(index)").status == .ok) }

        #expect(prober.probesRun == 5)
        #expect(cache.writes == 1, "the first probe is written at once, the four after it within the second kept")
        #expect(cache.directory.entries(of: ProbeCache.fileName).keys.sorted() == [lab.libraries[0]])

        clock.advance(by: ProbeCache.writeInterval)
        #expect(await shell.perform("send r0").status == .ok)  // loads nothing: only its end writes

        #expect(cache.writes == 2)
        #expect(cache.directory.entries(of: ProbeCache.fileName).keys.sorted() == lab.libraries.sorted())
    }

    @Test func aStoreIsWrittenAtOnceWhenTheLastWriteIsASecondOldAndPendingBeforeThat() throws {
        let lab = try WelcomeLab(plugins: 3)
        let clock = ManualClock()
        let cache = ProbeCache(directory: CacheDirectory(path: lab.temporary.path + "/cache"), now: clock.now)
        let identities = try lab.libraries.map { try #require(FileIdentity(path: $0)) }

        cache.store(lab.probed(0), identity: identities[0], pin: nil)
        cache.store(lab.probed(1), identity: identities[1], pin: nil)
        cache.writeIfDue()
        #expect(cache.writes == 1)
        clock.advance(by: ProbeCache.writeInterval)
        cache.store(lab.probed(2), identity: identities[2], pin: nil)

        #expect(cache.writes == 2)
        #expect(cache.directory.entries(of: ProbeCache.fileName).count == 3)
    }

    /// The last loads of a run, within a second of the write before them, are written as the host ends,
    /// here on a script's failure (exit 1).
    @Test func theLoadsKeptPendingAreOnDiskWhenTheRunEnds() throws {
        let lab = try WelcomeLab(plugins: 4)
        let script = try lab.temporary.file(
            "all.flow", containing: (0..<4).map { "send r\($0)\n" }.joined() + "send nowhere\n")
        let cache = lab.temporary.path + "/xdg"

        let run = try Subprocess.flowhost(
            ["run", lab.manifestPath, "--script", script, "--quiet"], environment: ["XDG_CACHE_HOME": cache])

        #expect(run.status == 1, "\(run.standardError)")
        let written = CacheDirectory(path: cache + "/flowhost").entries(of: ProbeCache.fileName)
        #expect(written.keys.sorted() == lab.libraries.sorted())
    }
}

// MARK: - Test Helpers

/// A clock that moves only when told.
private final class ManualClock: Sendable {
    private let instant = PthreadMutex(ContinuousClock.now)

    /// Reads the clock, for ``ProbeCache``.
    var now: @Sendable () -> ContinuousClock.Instant { { [instant] in instant.withLock { $0 } } }

    func advance(by duration: Duration) { instant.withLock { $0 += duration } }
}

/// Distinct copies of the welcome plugin, `p0` and on, each routed from `r0` and on.
@MainActor
private struct WelcomeLab {
    let temporary: TemporaryDirectory
    let libraries: [String]
    let manifestPath: String
    let manifest: Manifest

    init(plugins count: Int) throws {
        let temporary = try TemporaryDirectory()
        self.temporary = temporary
        let bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        libraries = try (0..<count).map { try temporary.file("libWelcome\($0).so", containing: bytes) }
        let declared = libraries.enumerated().map { #""p\#($0.offset)": "\#($0.element)""# }
        let routes = libraries.indices.map { #"{"request": "r\#($0)", "plugin": "p\#($0)", "manager": "Launch"}"# }
        manifestPath = try temporary.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {\(declared.joined(separator: ", "))},
                 "routes": [\(routes.joined(separator: ", "))]}
                """)
        manifest = try Manifest.load(path: manifestPath)
    }

    /// A probe of library `index` as the cache keeps it.
    func probed(_ index: Int) -> ProbedPlugin {
        var plugin = ProbedPlugin(
            path: libraries[index], name: "p", version: "1.0.0", flowKitVersion: FlowKitVersion(major: 1, minor: 0),
            managers: [], services: [])
        plugin.digest = "ab12"
        return plugin
    }
}
