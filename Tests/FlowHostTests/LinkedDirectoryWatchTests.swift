import FlowKit
import Glibc
import Testing

@testable import HostSupport

/// One directory watched under two names (a manifest discovering a directory and a link to it): inotify gives
/// both the same watch, which reports a change under each name, so a library rebuilt in place is reloaded
/// whichever name found it, and forgetting one name keeps the other's watch.
struct LinkedDirectoryWatchTests {
    @Test func underWatchALibraryRebuiltInADirectoryDiscoveredUnderTwoNamesIsReloadedEachTime() throws {
        let directory = try TemporaryDirectory()
        let plugins = directory.path + "/plugins.d"
        try #require(mkdir(plugins, 0o755) == 0)
        try #require(symlink(plugins, directory.path + "/linked.d") == 0)
        let manifest = try directory.file(
            "app.json", containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "linked.d"]}"#)
        _ = try directory.file("plugins.d/libGreeter.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let shell = try ChildProcess.flowhost(
            ["run", manifest, "--watch"], connection: .pipes, environment: directory.environment())
        try shell.waitFor("top: (nothing)")
        try shell.send("send greet\n")
        try shell.waitFor("handled by greeter.Greeter")

        // Rebuilt as a linker does, twice: each rediscovery sets the watches again, which must keep both names.
        for (generation, version) in [(2, "V2"), (3, "V1")] {
            let staging = try directory.file(
                ".staging.so", containing: BuildProducts.bytes(of: "libGreeterPlugin\(version).so"))
            try #require(rename(staging, plugins + "/libGreeter.so") == 0)
            // The wait's own reply, not the reload's line: a slow shell (under a sanitizer) may read this wait
            // after both reloads, and the next wait would then outlast the input's end.
            try shell.send("wait reload greeter 30\n")
            try shell.waitFor("plugin 'greeter': generation \(generation) serves", within: .seconds(40))
        }
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test @MainActor func aDirectoryWatchedUnderTwoNamesReportsAChangeUnderEachAndKeepsOneWhenTheOtherIsDropped()
        async throws
    {
        let directory = try TemporaryDirectory()
        let real = directory.path + "/real.d"
        let linked = directory.path + "/linked.d"
        let marks = directory.path + "/marks.d"
        try #require(mkdir(real, 0o755) == 0 && symlink(real, linked) == 0 && mkdir(marks, 0o755) == 0)
        let (changes, continuation) = AsyncStream<String>.makeStream()
        let watcher = try FileWatcher(files: [], directories: [real, linked, marks]) { continuation.yield($0) }
        defer { watcher.stop() }
        var next = changes.makeAsyncIterator()
        /// What was reported up to the mark written after `file`: a name not reported does not hang the test.
        func reported(writing file: String) async throws -> [String] {
            _ = try directory.file(file, containing: "changed")
            let mark = try directory.file("marks.d/\(file.split(separator: "/").last!)", containing: "after it")
            var paths: [String] = []
            while let path = await next.next(isolation: #isolation), path != mark { paths.append(path) }
            return paths
        }

        #expect(try await reported(writing: "real.d/libA.so") == [real + "/libA.so", linked + "/libA.so"])

        try watcher.watch(files: [], directories: [real, marks])
        #expect(try await reported(writing: "real.d/libB.so") == [real + "/libB.so"], "the name kept stays watched")

        try watcher.watch(files: [], directories: [real, linked, marks])
        try watcher.watch(files: [], directories: [linked, marks])
        #expect(try await reported(writing: "real.d/libC.so") == [linked + "/libC.so"], "so does the other")
    }
}
