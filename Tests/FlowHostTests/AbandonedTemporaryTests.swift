import FlowKit
import Glibc
import Testing

@testable import HostSupport
@testable import PluginLoading

/// A host killed between the creation of a file's temporary copy and its rename (`strace -e
/// inject=rename:signal=KILL flowhost run app.json --eager` does it every time) left the copy beside the file
/// for good, one more at each such kill. The next write of the file removes those a minute old, and no other.
struct AbandonedTemporaryTests {
    @Test func aChangeRemovesTheTemporaryCopiesKilledWritersLeftAndKeepsFreshOnes() throws {
        let directory = try TemporaryDirectory()
        let cache = CacheDirectory(path: directory.path + "/cache")
        try cache.update("registry.json") { $0["/lib/a.so"] = ["plugin": "a"] }
        let abandoned = cache.path + "/registry.json.tmp-AbCdEf123456"
        let fresh = cache.path + "/registry.json.tmp-ZyXwVu987654"
        let other = cache.path + "/quarantine.json.tmp-AbCdEf123456"
        for file in [abandoned, fresh, other] {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            close(descriptor)
        }
        let old = timespec(tv_sec: time(nil) - 120, tv_nsec: 0)
        for file in [abandoned, other] {
            var times = [old, old]
            try #require(utimensat(AT_FDCWD, file, &times, 0) == 0)
        }

        try cache.update("registry.json") { $0["/lib/b.so"] = ["plugin": "b"] }

        #expect(access(abandoned, F_OK) != 0)
        #expect(access(fresh, F_OK) == 0, "a writer without the lock may be writing it")
        #expect(access(other, F_OK) == 0, "another file's, removed by its own changes")
        #expect(cache.entries(of: "registry.json").count == 2)
    }

    /// A `save FILE` killed before its rename left `FILE.tmp-*` in the user's own directory; the next save
    /// there removes it.
    @Test func theNextSaveRemovesTheTemporaryCopyAKilledSaveLeft() throws {
        let directory = try TemporaryDirectory()
        let snapshot = directory.path + "/session.json"
        let abandoned = snapshot + ".tmp-AbCdEf123456"
        let fresh = snapshot + ".tmp-ZyXwVu987654"
        let unlike = snapshot + ".tmp-short"
        for file in [abandoned, fresh, unlike] {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            close(descriptor)
            var times = [timespec(tv_sec: time(nil) - 120, tv_nsec: 0), timespec(tv_sec: time(nil) - 120, tv_nsec: 0)]
            if file != fresh { try #require(utimensat(AT_FDCWD, file, &times, 0) == 0) }
        }

        try AtomicFile.write(Array("{}\n".utf8), to: snapshot, mode: 0o600, durable: true)

        #expect(access(abandoned, F_OK) != 0)
        #expect(access(fresh, F_OK) == 0, "another writer may be writing it")
        #expect(access(unlike, F_OK) == 0, "not a name the writer gives")
        #expect(try readText(snapshot) == "{}\n")
    }
}
