import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import HostSupport

/// Under `--watch`, a directory discovered through a link that is pointed elsewhere (`ln -sfn build/release
/// plugins.d`) or deleted: the link's name leaves the watch of where it led, so that what the old directory
/// holds is no longer said under it, and is watched where it leads now.
@MainActor
struct RepointedLinkWatchTests {
    @Test func aDiscoveredLinkPointedElsewhereIsReadThereAndWatchedThere() async throws {
        let lab = try DropInLab()
        let debug = lab.directory.path + "/debug"
        let release = lab.directory.path + "/release"
        try #require(rmdir(lab.plugins) == 0 && mkdir(debug, 0o755) == 0 && mkdir(release, 0o755) == 0)
        try #require(symlink("debug", lab.plugins) == 0)
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try Self.point(lab.plugins, at: "release", in: lab.directory)
        try await RecreatedLinkTargetWatchTests.waitFor(events) { $0.dropIn?.hasPrefix("removed greeter") == true }
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        try await RecreatedLinkTargetWatchTests.waitFor(events) { $0.dropIn?.hasPrefix("discovered greeter") == true }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aLinkPointedElsewhereOrDeletedIsReportedAndItsOldTargetNoLongerUnderItsName() async throws {
        let directory = try TemporaryDirectory()
        let linked = directory.path + "/linked.d"
        let marks = directory.path + "/marks.d"
        for name in ["debug.d", "release.d", "marks.d"] { try #require(mkdir(directory.path + "/" + name, 0o755) == 0) }
        try #require(symlink("debug.d", linked) == 0)
        let (changes, continuation) = AsyncStream<String>.makeStream()
        let watcher = try FileWatcher(files: [], directories: [linked, marks]) { continuation.yield($0) }
        defer { watcher.stop() }
        var next = changes.makeAsyncIterator()
        /// What was reported up to the mark `name` written after `change`: a name not reported does not hang
        /// the test.
        func reported(_ name: String, after change: () throws -> Void) async throws -> [String] {
            try change()
            let mark = try directory.file("marks.d/\(name)", containing: "after it")
            var paths: [String] = []
            while let path = await next.next(isolation: #isolation), path != mark { paths.append(path) }
            return paths
        }

        #expect(
            try await reported("pointed") { try Self.point(linked, at: "release.d", in: directory) } == [linked + "/"])
        #expect(try await reported("old") { _ = try directory.file("debug.d/libA.so", containing: "") } == [])
        #expect(
            try await reported("new") { _ = try directory.file("release.d/libB.so", containing: "") } == [
                linked + "/libB.so"
            ])
        #expect(try await reported("deleted") { try #require(unlink(linked) == 0) } == [linked + "/"])
        #expect(try await reported("gone") { _ = try directory.file("release.d/libC.so", containing: "") } == [])
    }
}

// MARK: - Test Helpers

extension RepointedLinkWatchTests {
    /// Points the link `path` at `target` as `ln -sfn` does: a new link made beside it and renamed over it.
    static func point(_ path: String, at target: String, in directory: TemporaryDirectory) throws {
        let staging = directory.path + "/.link.tmp"
        try #require(symlink(target, staging) == 0 && rename(staging, path) == 0)
    }
}
