import FlowKit
import Glibc
import Testing

@testable import HostSupport

/// Under `--watch`, a discovered directory that is deleted (or moved away) and made again, or that does
/// not exist yet at the start, is watched once it is there: libraries put in it are seen.
struct WatchedDirectoryTests {
    @Test func aDiscoveredDirectoryDeletedAndMadeAgainIsWatchedAgain() throws {
        let directory = try TemporaryDirectory()
        let plugins = directory.path + "/plugins.d"
        try #require(mkdir(plugins, 0o755) == 0)
        let manifest = try directory.file(
            "app.json", containing: #"{"manifestVersion": 1, "discover": ["plugins.d"]}"#)
        let library = try directory.file(
            "plugins.d/libGreeter.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let shell = try ChildProcess.flowhost(
            ["run", manifest, "--watch"], connection: .pipes, environment: directory.environment())
        try shell.waitFor("top: (nothing)")

        try #require(unlink(library) == 0 && rmdir(plugins) == 0)
        try shell.waitFor("plugin 'greeter' removed")
        try shell.waitFor("discovery: \(manifest): discover[0]: discovered directory \(plugins) not found")
        try #require(mkdir(plugins, 0o755) == 0)
        _ = try directory.file("plugins.d/libGreeter.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))

        try shell.send("wait reload greeter 30\n")
        try shell.waitFor("plugin 'greeter': discovered, its routes are live", within: .seconds(40))
        try shell.send("send greet\n")
        try shell.waitFor("handled by greeter.Greeter")
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func aDiscoveredDirectoryMadeAfterTheStartIsWatchedOnceItExists() throws {
        let directory = try TemporaryDirectory()
        let plugins = directory.path + "/later/plugins.d"
        let manifest = try directory.file(
            "app.json", containing: #"{"manifestVersion": 1, "discover": ["later/plugins.d"]}"#)
        let shell = try ChildProcess.flowhost(
            ["run", manifest, "--watch"], connection: .pipes, environment: directory.environment())
        try shell.waitFor("top: (nothing)")

        try #require(mkdir(directory.path + "/later", 0o755) == 0 && mkdir(plugins, 0o755) == 0)
        _ = try directory.file(
            "later/plugins.d/libGreeter.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))

        try shell.send("wait reload greeter 30\n")
        let printed = try shell.waitFor("plugin 'greeter': discovered, its routes are live", within: .seconds(40))
        #expect(!printed.contains("running without --watch"))
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test @MainActor func aDirectoryMovedAwayIsReportedAndWatchedAgainWhenMadeAnew() async throws {
        let directory = try TemporaryDirectory()
        let watched = directory.path + "/plugins.d"
        try #require(mkdir(watched, 0o755) == 0)
        let (changes, continuation) = AsyncStream<String>.makeStream()
        let watcher = try FileWatcher(files: [], directories: [watched]) { continuation.yield($0) }
        defer { watcher.stop() }
        var next = changes.makeAsyncIterator()

        try #require(rename(watched, directory.path + "/moved") == 0)
        #expect(await next.next() == watched + "/")
        _ = try directory.file("moved/libA.so", containing: "not watched: it moved away")
        try #require(mkdir(watched, 0o755) == 0)
        #expect(await next.next() == watched + "/")
        _ = try directory.file("plugins.d/libB.so", containing: "watched again")
        #expect(await next.next() == watched + "/libB.so")
    }

    @Test @MainActor func aWatcherGivenNewDirectoriesKeepsTheOldOnesWatchesAndForgetsTheOnesDropped() async throws {
        let directory = try TemporaryDirectory()
        let first = directory.path + "/first.d"
        let second = directory.path + "/second.d"
        try #require(mkdir(first, 0o755) == 0 && mkdir(second, 0o755) == 0)
        let (changes, continuation) = AsyncStream<String>.makeStream()
        let watcher = try FileWatcher(files: [], directories: [first]) { continuation.yield($0) }
        defer { watcher.stop() }
        var next = changes.makeAsyncIterator()

        #expect(try watcher.watch(files: [second + "/libA.so"], directories: [first]) == [])
        _ = try directory.file("first.d/libB.so", containing: "its directory kept its watch")
        #expect(await next.next() == first + "/libB.so")
        _ = try directory.file("second.d/libA.so", containing: "a file watched from now on")
        #expect(await next.next() == second + "/libA.so")

        #expect(try watcher.watch(files: [], directories: [second]) == [second])
        #expect(watcher.directories == [second] && watcher.files == [])
        _ = try directory.file("first.d/libC.so", containing: "no longer watched")
        _ = try directory.file("second.d/libD.so", containing: "watched whole now")
        #expect(await next.next() == second + "/libD.so")

        watcher.stop()
        #expect(throws: FlowError.self) { try watcher.watch(files: [], directories: [first]) }
    }

    /// A linker deletes its output before it writes it again, and a file can be deleted for good: a watched
    /// file's deletion or move away is reported, not only its writes.
    @Test @MainActor func aWatchedFileDeletedOrMovedAwayIsReported() async throws {
        let directory = try TemporaryDirectory()
        let deleted = try directory.file("libA.so", containing: "deleted")
        let moved = try directory.file("libB.so", containing: "moved away")
        let written = directory.path + "/libC.so"
        let (changes, continuation) = AsyncStream<String>.makeStream()
        let watcher = try FileWatcher(files: [deleted, moved, written], directories: []) { continuation.yield($0) }
        defer { watcher.stop() }
        var next = changes.makeAsyncIterator()

        try #require(unlink(deleted) == 0)
        try #require(rename(moved, directory.path + "/libB.old") == 0)
        _ = try directory.file("libC.so", containing: "written: reported in any case, after the others")

        var reported: [String] = []
        while let path = await next.next() {
            reported.append(path)
            if path == written { break }
        }
        #expect(reported == [deleted, moved, written])
    }
}
