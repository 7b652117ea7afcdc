import Foundation
import Glibc
import Testing

@testable import HostSupport
@testable import PluginLoading

/// Where memfds are unavailable, a process that ends without its `atexit` handlers (a crash, a kill) leaves
/// its private copies' directory in `$TMPDIR`; the first private copy a later process makes removes the ones
/// nobody holds the lock of, and only those.
@MainActor
struct AbandonedCopyDirectoryTests {
    /// The entries of `directory` whose names a copy's directory has.
    private func copyDirectories(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("flowhost-") }
    }

    @Test func aProbeThatCrashedLeavesADirectoryTheNextProcessRemoves() throws {
        let temporary = try TemporaryDirectory()
        let base = temporary.path + "/tmp"
        try #require(mkdir(base, 0o700) == 0)
        let environment: [String: String?] = [
            "LD_PRELOAD": try BuildProducts.path(of: "libNoMemfdPreload.so"), "TMPDIR": base,
            "XDG_CACHE_HOME": temporary.path + "/cache",
        ]
        let crashing = try Subprocess.flowhost(
            ["inspect", "--no-cache", try BuildProducts.path(of: "libBadSegfaultPlugin.so")], environment: environment)
        #expect(crashing.standardError.contains("crashed with SIGSEGV"), "\(crashing.standardError)")
        #expect(try copyDirectories(in: base).count == 1, "the crashed probe's directory, left")

        let next = try Subprocess.flowhost(
            ["inspect", "--no-cache", try BuildProducts.path(of: "libWelcomePlugin.so")], environment: environment)

        #expect(next.status == 0, "\(next.standardError)")
        #expect(try copyDirectories(in: base) == [], "swept by the next process's first private copy")
    }

    @Test func aSweepLeavesWhatIsInUseOrNotACopysDirectory() throws {
        let temporary = try TemporaryDirectory()
        let base = temporary.path
        let copy = try PluginCopy(reading: try BuildProducts.path(of: "libWelcomePlugin.so"), allowInsecure: false)
        // In use: this process keeps it, and holds its lock, for an image.
        let kept = parentDirectory(
            of: try copy.withPrivateFile(label: "libWelcomePlugin.gen1.so", in: base) { path in
                (path, keepsMapping: true)
            })
        defer { PluginCopy.removeKeptDirectories() }
        // Without a lock file: being made, or an earlier flowhost's.
        let unlocked = base + "/flowhost-1-aaaaaa"
        // A supervisor's, which is its own sweep's.
        let supervisor = base + "/flowhost-supervisor-bbbbbb"
        // Abandoned: a lock nobody holds.
        let abandoned = base + "/flowhost-2-cccccc"
        for directory in [unlocked, supervisor, abandoned] { try #require(mkdir(directory, 0o700) == 0) }
        for directory in [supervisor, abandoned] {
            let lock = open(directory + "/lock", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            try #require(lock >= 0)
            close(lock)
        }
        // Named as one, but a link to an abandoned-looking directory elsewhere: never followed, so that is left.
        let elsewhere = try TemporaryDirectory()
        let target = elsewhere.path + "/flowhost-4-eeeeee"
        try #require(mkdir(target, 0o700) == 0)
        let targetLock = open(target + "/lock", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(targetLock >= 0)
        close(targetLock)
        try #require(symlink(target, base + "/flowhost-3-dddddd") == 0)

        CopyDirectoryLock.remove(in: base)

        var status = stat()
        #expect(lstat(kept + "/lock", &status) == 0, "in use: left")
        #expect(lstat(unlocked, &status) == 0)
        #expect(lstat(supervisor + "/lock", &status) == 0)
        #expect(lstat(base + "/flowhost-3-dddddd", &status) == 0)
        #expect(lstat(target + "/lock", &status) == 0, "what the link leads to: left")
        #expect(lstat(abandoned, &status) != 0, "abandoned: removed")
    }
}
