import Glibc
import HostSupport
import Testing

@testable import PluginLoading

/// A pinned library's probe loads only the pinned bytes: its parent checks the pin on the file, then the probe
/// reads the file again, so a file swapped in between (it can be, with `--allow-insecure-plugins`) would run
/// another build's code, as the user who asked, unless the probe checks the pin on what it reads.
@MainActor
struct ProbePinTests {
    @Test func aProbeChecksThePinOnTheBytesItLoadsBeforeAnyOfThemRuns() throws {
        let directory = try TemporaryDirectory()
        // A library whose constructor aborts: it crashes the probe if any of its code runs.
        let aborting = try BuildProducts.bytes(of: "libBadAbortPlugin.so")
        let library = try directory.file("libGreeter.so", containing: aborting)
        let flowhost = try BuildProducts.path(of: "flowhost")
        let pinned = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))

        let refused = try ProbeProcess.run(executable: flowhost, path: library, sha256: pinned, timeout: 10)
        #expect(
            refused
                == .answered(
                    .error(
                        kind: PluginLoadError.Kind.checksumMismatch.rawValue,
                        message:
                            "sha256 is \(SHA256.hex(aborting)), the manifest expects \(pinned); rebuild it or update the manifest's sha256"
                    )))

        // Pinned to what it is, it runs, and its constructor aborts the probe.
        let ran = try ProbeProcess.run(executable: flowhost, path: library, sha256: SHA256.hex(aborting), timeout: 10)
        #expect(ran == .crashed(signal: SIGABRT))
    }

    @Test func aFileSwappedAfterItsPinWasCheckedIsRefusedNotQuarantined() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file(
            "libGreeter.so", containing: try BuildProducts.bytes(of: "libBadAbortPlugin.so"))
        let quarantine = PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache"))
        let cache = ProbeCache(directory: CacheDirectory(path: directory.path + "/cache"))
        let prober = PluginProber(
            executable: try BuildProducts.path(of: "flowhost"), cache: cache, quarantine: quarantine)
        // The caller checked the pin on the greeter it pins; the file is another library by the time it is probed.
        let pinned = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))

        for _ in 1...2 {
            do {
                _ = try prober.probe(library, pin: pinned)
                Issue.record("the swapped library was probed as the pinned one")
            } catch {
                #expect(error.kind == .checksumMismatch)
                #expect(error.file == library)
            }
        }
        #expect(prober.probesRun == 2, "a refusal is not cached")
        #expect(quarantine.entry(for: library, identity: FileIdentity(path: library)) == nil)
    }

    @Test func aProbesRequestReadsBackFromItsArguments() {
        let requests = [
            PluginProbe.Request(path: "/srv/libA.so"),
            PluginProbe.Request(path: "/srv/libA.so", allowInsecure: true),
            PluginProbe.Request(path: "/srv/libA.so", sha256: String(repeating: "a", count: 64)),
            PluginProbe.Request(path: "/srv/libA.so", allowInsecure: true, sha256: String(repeating: "b", count: 64)),
        ]
        for request in requests {
            #expect(PluginProbe.Request(arguments: request.arguments) == request)
        }
        for arguments in [
            [], ["/srv/libA.so", "--sha256"], ["/srv/libA.so", "--sha256", "ab", "extra"],
            ["/srv/libA.so", "--sha256", "ab", "--allow-insecure-plugins"],
        ] {
            #expect(PluginProbe.Request(arguments: arguments) == nil, "\(arguments)")
        }
    }
}
