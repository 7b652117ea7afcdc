import Testing

@testable import PluginLoading

/// A probe process that says nothing at all, not even the hello it sends before any of the library's code runs,
/// never got as far as the library: the program run as the probe is no flowhost that probes (tests that made a
/// host in their own process probed with the test binary), or it failed as it started. The library is not
/// quarantined for it; it was, as having "exited with status 0", in the cache of whoever ran the tests.
@MainActor
struct SilentProbeTests {
    @Test func aProbeThatSaysNothingQuarantinesNothing() throws {
        let directory = try TemporaryDirectory()
        let quarantine = PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache"))
        let prober = PluginProber(executable: "/bin/true", cache: nil, quarantine: quarantine)
        let library = try BuildProducts.path(of: "libWelcomePlugin.so")

        #expect {
            try prober.probe(library)
        } throws: { error in
            let error = try #require(error as? PluginLoadError)
            return error.kind == .probeFailed
                && error.message == "cannot probe it: the probe process said nothing and exited with status 0"
        }
        #expect(quarantine.entries().isEmpty)
    }
}
