import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import HostSupport
@testable import PluginLoading

/// Under `--watch`, a plugin library that is not there when the watch starts is watched where it would be
/// found, so that making it loads the plugin whose load failed for want of it (and is said to a plugin not
/// loaded yet, which loads it on first use), in a manifest without `discover` too: in each directory of the
/// search path, one made after the watch started too, and those that cannot be watched left out.
@MainActor
struct MissingLibraryWatchTests {
    @Test(.timeLimit(.minutes(20)))
    func aLibraryMissingAtTheStartLoadsOnceItIsMadeInASearchDirectoryMadeAfterTheWatch() async throws {
        let lab = try SwapLab()
        try #require(unlink(lab.library) == 0)
        let plugins = lab.directory.path + "/plugins"
        let host = try Self.host(lab, searchPath: [plugins])
        guard case .failed = host.coordinator.requestCoordination("greet", from: .app) else {
            throw TestFailure("greet did not fail while its library is missing")
        }
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try #require(mkdir(plugins, 0o755) == 0)
        let library = try Self.install(lab, in: plugins)
        let line = try #require(await events.nextLine())

        #expect(line.hasPrefix("reloaded plugin 'greeter': generation 1 from \(library)"), "\(line)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test(.timeLimit(.minutes(20)))
    func aSearchDirectoryThatCannotBeWatchedIsLeftOutAndTheOthersAreWatched() async throws {
        let lab = try SwapLab()
        try #require(unlink(lab.library) == 0)
        // A symbolic link loop: inotify refuses it (ELOOP) whoever runs the test, root too (a mode-000
        // directory would not do as root). Last, as looking there fails too.
        let loop = lab.directory.path + "/loop"
        try #require(symlink(loop, loop) == 0)
        let plugins = lab.directory.path + "/plugins"
        try #require(mkdir(plugins, 0o755) == 0)
        let host = try Self.host(lab, searchPath: [plugins, loop])
        let events = try HostEventCollector(host)
        defer { host.stop() }

        let library = try Self.install(lab, in: plugins)
        let line = try #require(await events.nextLine())

        // Never asked for, greeter is not loaded: its library, checked, will be on first use.
        #expect(line == "plugin 'greeter' is not loaded yet: its new library \(library) will load on first use")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    @Test func aCandidateWhoseDirectoryCannotBeWatchedIsLeftOutButAWatchedFileIsNot() throws {
        let directory = try TemporaryDirectory()
        let loop = directory.path + "/loop"
        try #require(symlink(loop, loop) == 0)
        let watcher = try FileWatcher(files: [], directories: []) { _ in }
        defer { watcher.stop() }

        try watcher.watch(files: [], candidates: [loop + "/libA.so", directory.path + "/libA.so"], directories: [])
        #expect(throws: FlowError("cannot watch \(loop): Too many levels of symbolic links")) {
            try watcher.watch(files: [loop + "/libA.so"], directories: [])
        }
    }

    /// In a manifest that does not discover, a library's deletion, which the watcher reports, changes nothing:
    /// its loaded copy keeps serving; nor does the manifest's, moved away as an editor does before it writes it
    /// again. (The test reports the deletions to the host itself, as the watcher would.)
    @Test func withoutDiscoveryADeletedLibraryOrManifestChangesNothing() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try #require(unlink(lab.library) == 0)
        host.changed(lab.library, landedAt: .now)
        try #require(rename(lab.manifestPath, lab.manifestPath + "~") == 0)
        host.changed(lab.manifestPath, landedAt: .now)

        #expect(events.lines.isEmpty, "\(events.lines)")
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
    }

    // MARK: - Test Helpers

    /// A host on `lab`'s manifest looking for plugins in `searchPath`, started.
    static func host(_ lab: SwapLab, searchPath: [String]) throws -> Host {
        let host = Host(
            manifest: try Manifest.load(path: lab.manifestPath), searchPath: PluginSearchPath(searchPath),
            versioned: true)
        host.start()
        return host
    }

    /// Puts the greeter's first generation in `directory` as a linker does; returns its path.
    static func install(_ lab: SwapLab, in directory: String) throws -> String {
        let staging = try lab.directory.file("staging.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let library = directory + "/libGreeter.so"
        try #require(rename(staging, library) == 0)
        return library
    }
}
