import FlowKit
import Glibc
import HostSupport
import Testing

@testable import PluginLoading

/// A child that plugin code forks while the host changes its cache (from a thread of its own, or a helper it
/// starts) does not keep the cache directory locked, however long it lives with the descriptors it inherited.
/// The lock was a `flock` on a descriptor of the directory: such a lock belongs to the open file description,
/// which the child shares, so it stayed held until the child ended, and every later change, by this host or
/// another, waited the lock's patience (2 s) and then wrote without it. A change made at once by another host
/// still waits for one that holds the lock, as before. Serialized: that test holds this process's lock for
/// seconds, which the others, timing their changes, must not wait for.
@Suite(.serialized) struct CacheLockForkTests {
    @Test func aChildForkedDuringAChangeDoesNotMakeTheHostsNextChangeWait() throws {
        let directory = try TemporaryDirectory()
        let cache = CacheDirectory(path: directory.path + "/flowhost")
        try withChildForkedDuringAChange(of: cache) {
            let clock = ContinuousClock()
            let start = clock.now
            try cache.update("registry.json") { $0["/later/libB.so"] = ["file": ["size": "2"]] }
            let waited = clock.now - start
            #expect(waited < CacheDirectory.lockPatience / 2, "the change waited \(waited)")
        }
        #expect(Set(cache.entries(of: "registry.json").keys) == ["/first/libA.so", "/later/libB.so"])
    }

    @Test func aChildForkedDuringAChangeDoesNotMakeAnotherHostsChangeWait() throws {
        let directory = try TemporaryDirectory()
        let cache = CacheDirectory(path: directory.path + "/flowhost")
        try withChildForkedDuringAChange(of: cache) {
            // `quarantine clear` changes quarantine.json under the directory's lock, and does nothing else.
            let (run, took) = try timedQuarantineClear(cacheHome: directory.path)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(took < CacheDirectory.lockPatience, "the other host took \(took)")
        }
    }

    @Test func anotherHostsChangeWaitsForTheLockThisHostHolds() throws {
        let directory = try TemporaryDirectory()
        let cache = CacheDirectory(path: directory.path + "/flowhost")
        var took: Duration = .zero
        var status: Int32 = -1
        try cache.update("registry.json") { _ in
            guard let (run, duration) = try? timedQuarantineClear(cacheHome: directory.path) else { return }
            (status, took) = (run.status, duration)
        }
        #expect(status == 0)
        // It waited for the lock, then, the patience spent, went on without it.
        #expect(took >= CacheDirectory.lockPatience, "the other host took \(took)")
    }

    // MARK: - Test Helpers

    /// Changes `cache`'s registry (adding `/first/libA.so`) and, while the change holds the lock, forks a
    /// child that holds every descriptor it inherited until `body` has run, as a plugin's helper would.
    private func withChildForkedDuringAChange(of cache: CacheDirectory, _ body: () throws -> Void) throws {
        let pipe = try #require(PipeDescriptors.make())
        var child: pid_t = -1
        try cache.update("registry.json") { entries in
            entries["/first/libA.so"] = ["file": ["size": "1"]]
            child = fork()
            if child == 0 {
                // Only calls safe after a fork: the child waits for the parent to close the pipe.
                close(pipe.write)
                var byte: UInt8 = 0
                _ = read(pipe.read, &byte, 1)
                _exit(0)
            }
        }
        close(pipe.read)
        defer {
            close(pipe.write)
            if child > 0 {
                var status: Int32 = 0
                _ = waitpid(child, &status, 0)
            }
        }
        try #require(child > 0)
        try body()
    }

    /// Runs `flowhost quarantine clear` with the cache directory in `cacheHome`, and says how long it took.
    private func timedQuarantineClear(cacheHome: String) throws -> (Subprocess, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let run = try Subprocess.flowhost(["quarantine", "clear"], environment: ["XDG_CACHE_HOME": cacheHome])
        return (run, clock.now - start)
    }
}
