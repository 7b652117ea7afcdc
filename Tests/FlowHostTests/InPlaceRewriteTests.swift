import FlowKit
import Glibc
import Testing

@testable import HostSupport
@testable import PluginLoading

/// A library written again in place, its size kept and its modification time put back (`dd conv=notrunc`
/// then `touch -r`; `cp -p` or `rsync --inplace -t` over it): the registry cache tells it by its
/// status-change time, and a cache entry that does not describe the bytes read is not believed twice.
@MainActor
struct InPlaceRewriteTests {
    /// A copy of the welcome plugin, with a manifest that starts it, and the cache directory's parent.
    private struct Lab {
        let directory: TemporaryDirectory
        let library: String
        let manifest: String
        let script: String
        var environment: [String: String?] { ["XDG_CACHE_HOME": directory.path + "/cache"] }

        init() throws {
            directory = try TemporaryDirectory()
            library = try directory.file(
                "libWelcomePlugin.so", containing: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1, "plugins": {"welcome": "\(library)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}],
                     "start": ["launch"]}
                    """)
            script = try directory.file("empty.flow", containing: "")
        }

        /// Writes the library's bytes again over the same file, with manager `OnboardingPage` renamed
        /// `OnboardingPagX` (as long), then puts its access and modification times back.
        func rewriteInPlace() throws {
            var before = stat()
            try #require(stat(library, &before) == 0)
            let bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
            let old = Array("OnboardingPage".utf8)
            var patched = bytes
            var index = 0
            var replaced = 0
            while index + old.count <= patched.count {
                if Array(patched[index..<index + old.count]) == old {
                    patched[index + old.count - 1] = UInt8(ascii: "X")
                    replaced += 1
                }
                index += 1
            }
            try #require(replaced > 0)
            let descriptor = open(library, O_WRONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try #require(patched.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == patched.count)
            var times = [before.st_atim, before.st_mtim]
            try #require(futimens(descriptor, &times) == 0)
            var after = stat()
            try #require(fstat(descriptor, &after) == 0)
            try #require(after.st_size == before.st_size && after.st_ino == before.st_ino)
            try #require(
                after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        }
    }

    @Test func aLibraryWrittenAgainInPlaceWithItsTimesPutBackIsProbedAgain() throws {
        let lab = try Lab()
        let first = try Subprocess.flowhost(["inspect", lab.library], environment: lab.environment)
        #expect(first.outputLines.contains("managers: Launch, Onboarding, OnboardingPage"))

        try lab.rewriteInPlace()

        let second = try Subprocess.flowhost(["inspect", lab.library], environment: lab.environment)
        #expect(second.outputLines.contains("managers: Launch, Onboarding, OnboardingPagX"), "not the cache's")
        let run = try Subprocess.flowhost(["run", lab.manifest, "--script", lab.script], environment: lab.environment)
        #expect(run.status == 0)
        #expect(!run.standardError.contains("changed 3 times"))
    }

    @Test func aCacheEntryThatDoesNotDescribeTheBytesReadIsNotBelievedTwice() throws {
        let lab = try Lab()
        // An entry for the file as it is now whose digest is another's: what a probe of bytes since written
        // over, in the same instant, would have left.
        let cache = ProbeCache(directory: CacheDirectory(path: lab.directory.path + "/cache/flowhost"))
        let prober = PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: nil, quarantine: nil)
        var probed = try prober.probe(lab.library)
        probed.digest = String(repeating: "0", count: 64)
        cache.store(probed, identity: try #require(FileIdentity(path: lab.library)), pin: nil)
        cache.writePending()

        let run = try Subprocess.flowhost(["run", lab.manifest, "--script", lab.script], environment: lab.environment)

        #expect(run.status == 0)
        #expect(!run.standardError.contains("changed 3 times"), "\(run.standardError)")
    }

    @Test func aCacheEntryWithoutTheStatusChangeTimeIsAMiss() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file("libWhatever.so", containing: "only a file to identify")
        let identity = try #require(FileIdentity(path: library))
        var old = identity.json
        old["ctime"] = nil

        let read = try #require(FileIdentity(json: .object(old)))
        #expect(read != identity, "the cache's comparison: a miss")
        #expect(read.content == identity.content, "the quarantine's: still the file it refused")
        #expect(FileIdentity(json: .object(identity.json)) == identity)
    }
}
