import Glibc
import Testing

/// `flowhost run --supervise` with `$TMPDIR` on a file system with no space left, where the supervisor's
/// directory can still be made but not a byte written in it.
struct FullTemporaryDirectoryTests {
    @Test(
        .enabled(if: geteuid() == 0, "mounting a small file system needs root"),
        .disabled(
            if: Sanitizer.current == .thread,
            "with $TMPDIR full, a ThreadSanitizer build dies of SIGBUS in the sanitizer's runtime before any of its code runs (flowhost version too)"
        ))
    func aSupervisedRunOnAFullTemporaryFileSystemGoesOnWithoutItsBreadcrumb() throws {
        let directory = try TemporaryDirectory()
        let full = directory.path + "/full"
        try #require(mkdir(full, 0o700) == 0)
        try #require(mount("tmpfs", full, "tmpfs", 0, "size=64k,mode=0700") == 0)
        defer { umount2(full, Int32(MNT_DETACH)) }
        // Filled to the last block.
        let filler = open(full + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(filler >= 0)
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        close(filler)

        let run = try Subprocess.flowhost(
            [
                "run", Repository.path("manifests/demo.json"), "--supervise", "--quiet", "--script",
                Repository.path("manifests/demo.flow"),
            ], environment: ["TMPDIR": full, "XDG_CACHE_HOME": directory.path + "/cache"])

        // Its breadcrumb's page, mapped from a file with no block behind it, made every host die of SIGBUS as it
        // started, and the supervisor give up after 6 restarts (exit 70).
        #expect(!run.standardError.contains("SIGBUS"))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("breadcrumb: No space left on device"))
        // Every command's snapshot fails too: said once, not after each of them.
        let unsaved = run.errorLines.filter { $0.hasSuffix("a restart after a crash starts afresh") }
        #expect(unsaved.count == 1, "\(run.standardError)")
    }
}
