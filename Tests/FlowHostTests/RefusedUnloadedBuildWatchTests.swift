import Glibc
import PluginLoading
import Testing

@testable import FlowHost

/// Under `--watch`, one build of a plugin not loaded yet lands as several file events (a linker deletes its
/// output, makes it, writes it in place and closes it; a build renamed into place may be touched after), each
/// of which checks the library again. A build that loading would refuse for what its bytes are is said once,
/// as a loaded plugin's is (``RefusedBuildWatchTests``), and so is a build that will load on first use; a
/// refusal of the file, not its bytes, is said at each event; `reload` still tries, and says, the build
/// refused. The fixtures: `BadDataEntryPlugin` exports its entry point as data, which the check before any
/// code runs refuses.
@MainActor
struct RefusedUnloadedBuildWatchTests {
    @Test func aBuildOfAPluginNotLoadedYetIsSaidOncePerBuildRefusedOrNot() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        var said: [String] = []
        host.onEvent = { said.append($0.description) }

        try Self.link("BadDataEntryPlugin", in: lab, host: host)

        let refusal = "plugin 'greeter' is not loaded yet, and its new library would be refused: "
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.hasPrefix(refusal) == true && said.first?.contains("not a function") == true, "\(said)")

        // A good build after it is said, once, though the linker's events are as many.
        said = []
        try Self.link("GreeterPluginV2", in: lab, host: host)
        #expect(said == ["plugin 'greeter' is not loaded yet: its new library \(lab.library) will load on first use"])

        // The refused bytes back, renamed into place then touched: said again, once.
        said = []
        try lab.install("BadDataEntryPlugin")
        host.reloadWhenComplete("greeter", landedAt: .now)
        try Self.touch(lab.library)
        host.reloadWhenComplete("greeter", landedAt: .now)
        #expect(said.count == 1 && said.first?.hasPrefix(refusal) == true, "\(said)")
        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("greeter is \(String(describing: host.registry.status(of: "greeter")))")
        }
        #expect(host.registry.images(of: "greeter") == 0, "a check opens no image")

        // A reload asked for tries the build refused, and says so.
        guard case .reloadRefused(_, let error) = host.reloadPlugin("greeter") else {
            throw TestFailure("a reload asked for should try the refused build")
        }
        #expect(error.message.contains("not a function"), "\(error)")
    }

    /// A build refused for its file's mode, which the same bytes pass once it is fixed, is not remembered:
    /// each event tries it, and says it once for one state of the file. Nor is the build refused for its bytes
    /// before it, once the mode's refusal was said: the mode fixed, those bytes are said refused again.
    @Test func aRefusalOfTheFileIsSaidAtEachEventAndForgetsTheBuildRefusedBefore() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        var said: [String] = []
        host.onEvent = { said.append($0.description) }

        try lab.install("BadDataEntryPlugin")
        for _ in 1...2 { host.reloadWhenComplete("greeter", landedAt: .now) }  // the events of one build
        #expect(said.count == 1 && said.first?.contains("not a function") == true, "\(said)")

        said = []
        #expect(chmod(lab.library, 0o666) == 0)
        for _ in 1...2 { host.reloadWhenComplete("greeter", landedAt: .now) }
        #expect(said.count == 1 && said.first?.contains("writable") == true, "\(said)")

        said = []
        #expect(chmod(lab.library, 0o644) == 0)
        host.reloadWhenComplete("greeter", landedAt: .now)
        #expect(said.count == 1 && said.first?.contains("not a function") == true, "\(said)")
    }

    /// In a manifest that discovers, the probe refuses a bad build before any check: said once too, a crash
    /// with the quarantine it leaves on the same file included, and a good build after it is said.
    @Test(arguments: ["BadDataEntryPlugin", "BadSegfaultPlugin"])
    func aDiscoveredBuildOfAPluginNotLoadedYetThatItsProbeRefusesIsSaidOncePerBuild(_ product: String)
        async throws
    {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        var said: [String] = []
        host.onEvent = { event in
            if case .unloadedLibraryChanged = event { said.append(event.description) }
        }

        try Self.link(product, at: library) { host.rediscover(changed: library, landedAt: .now) }
        #expect(said.count == 1, "\(said)")
        #expect(
            said.first?.hasPrefix("plugin 'greeter' is not loaded yet, and its new library would be refused: ") == true)

        said = []
        try Self.link("GreeterPluginV2", at: library) { host.rediscover(changed: library, landedAt: .now) }
        for _ in 0..<1000 where said.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(said == ["plugin 'greeter' is not loaded yet: its new library \(library) will load on first use"])
        guard case .notLoaded? = host.registry.status(of: "greeter") else {
            throw TestFailure("greeter is \(String(describing: host.registry.status(of: "greeter")))")
        }
    }
}

// MARK: - Test Helpers

extension RefusedUnloadedBuildWatchTests {
    /// Writes a build of `product` over the lab's library as a linker does, taking each event that leaves a
    /// whole file as the watch would: the file deleted and made anew (empty, so not taken), written in place
    /// (IN_MODIFY), closed (IN_CLOSE_WRITE), then touched (IN_ATTRIB).
    static func link(_ product: String, in lab: SwapLab, host: Host) throws {
        try link(product, at: lab.library) { host.reloadWhenComplete("greeter", landedAt: .now) }
    }

    /// Writes a build of `product` over the library at `path` as a linker does, calling `event` for each
    /// event that leaves a whole file (``link(_:in:host:)``).
    static func link(_ product: String, at path: String, event: () -> Void) throws {
        let bytes = try BuildProducts.bytes(of: "lib\(product).so")
        #expect(unlink(path) == 0)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        try #require(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        event()
        close(descriptor)
        event()
        try touch(path)
        event()
    }

    /// Sets the file's times to now, as `touch` does, which changes its status too.
    static func touch(_ path: String) throws {
        try #require(utimensat(AT_FDCWD, path, nil, 0) == 0)
    }
}
