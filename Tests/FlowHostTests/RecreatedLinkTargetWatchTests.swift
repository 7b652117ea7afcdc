import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import HostSupport

/// Under `--watch`, a directory discovered through a link (`plugins.d -> build/plugins`) whose target is
/// deleted and made again (`rm -rf build/plugins; mkdir build/plugins`): the link itself never changes, so
/// where it leads is awaited, and the directory made there is watched under every name it was watched by.
@MainActor
struct RecreatedLinkTargetWatchTests {
    @Test func aLibraryCopiedIntoTheRemadeTargetOfADiscoveredLinkIsDiscovered() async throws {
        let lab = try DropInLab()
        let target = lab.directory.path + "/build/plugins"
        try #require(rmdir(lab.plugins) == 0 && mkdir(lab.directory.path + "/build", 0o755) == 0)
        try #require(mkdir(target, 0o755) == 0 && symlink("build/plugins", lab.plugins) == 0)
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try #require(rmdir(target) == 0)
        try await Self.waitFor(events) { $0.description.contains("discovered directory \(lab.plugins) not found") }
        try #require(mkdir(target, 0o755) == 0)
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")

        try await Self.waitFor(events) { $0.dropIn?.hasPrefix("discovered greeter") == true }
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aRemadeTargetIsWatchedUnderItsOwnNameAndTheLinksBoth() async throws {
        let directory = try TemporaryDirectory()
        let real = directory.path + "/real.d"
        let linked = directory.path + "/linked.d"
        let marks = directory.path + "/marks.d"
        try #require(mkdir(real, 0o755) == 0 && symlink("real.d", linked) == 0 && mkdir(marks, 0o755) == 0)
        let (changes, continuation) = AsyncStream<String>.makeStream()
        let watcher = try FileWatcher(files: [], directories: [real, linked, marks]) { continuation.yield($0) }
        defer { watcher.stop() }
        var next = changes.makeAsyncIterator()
        /// What was reported up to the mark `name` written after `change`, sorted: a name not reported does not
        /// hang the test.
        func reported(_ name: String, after change: () throws -> Void) async throws -> [String] {
            try change()
            let mark = try directory.file("marks.d/\(name)", containing: "after it")
            var paths: [String] = []
            while let path = await next.next(isolation: #isolation), path != mark { paths.append(path) }
            return paths.sorted()
        }

        #expect(try await reported("deleted") { try #require(rmdir(real) == 0) } == [linked + "/", real + "/"])
        #expect(try await reported("made") { try #require(mkdir(real, 0o755) == 0) } == [linked + "/", real + "/"])
        let written = try await reported("written") { _ = try directory.file("real.d/libA.so", containing: "new") }
        #expect(written == [linked + "/libA.so", real + "/libA.so"])
    }
}

// MARK: - Test Helpers

extension RecreatedLinkTargetWatchTests {
    /// Waits up to 10 s for an event of `events` that `matches`; fails the test, saying the events, when none
    /// comes.
    static func waitFor(_ events: HostEventCollector, _ matches: (HostEvent) -> Bool) async throws {
        for _ in 0..<1000 where !events.events.contains(where: matches) { try await Task.sleep(for: .milliseconds(10)) }
        guard events.events.contains(where: matches) else { throw TestFailure("not among \(events.lines)") }
    }
}
