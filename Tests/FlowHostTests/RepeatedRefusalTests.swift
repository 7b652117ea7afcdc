import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// A library refused for its file's mode is tried at every file event, since its bytes may pass once the mode
/// changes, but its refusal is said once for one state of the file: a linker's one build is several events.
@MainActor
struct RepeatedRefusalTests {
    @Test func aLoadedPluginsLibraryWritableByOthersIsRefusedOnceAndTakenOnceMadePrivate() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        var events: [HostEvent] = []
        host.onEvent = { events.append($0) }

        try Self.installWritableByOthers("GreeterPluginV2", in: lab)
        host.reloadWhenComplete("greeter", landedAt: .now)
        host.reloadWhenComplete("greeter", landedAt: .now)
        let refused = events
        events.removeAll()
        // The same file, its mode changed (perhaps within the tick of its status-change time): tried again.
        try #require(chmod(lab.library, 0o644) == 0)
        host.reloadWhenComplete("greeter", landedAt: .now)

        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first?.isRefusal == true, "\(refused)")
        #expect(events.count == 1 && events.first?.isReloaded == true, "\(events)")
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.servingGeneration(of: "greeter") == 2)
    }

    @Test func anUnloadedPluginsLibraryWritableByOthersIsRefusedOnceAndCheckedOnceMadePrivate() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        var events: [HostEvent] = []
        host.onEvent = { events.append($0) }

        try Self.installWritableByOthers("GreeterPluginV2", in: lab)
        host.reloadWhenComplete("greeter", landedAt: .now)
        host.reloadWhenComplete("greeter", landedAt: .now)
        let refused = events
        events.removeAll()
        try #require(chmod(lab.library, 0o644) == 0)
        host.reloadWhenComplete("greeter", landedAt: .now)

        #expect(refused.map(\.isRefusal) == [true], "\(refused)")
        guard case .unloadedLibraryChanged(_, _, refusal: nil)? = events.first, events.count == 1 else {
            throw TestFailure("after the chmod: \(events)")
        }
        #expect(host.registry.servingGeneration(of: "greeter") == nil, "checked, not loaded")
    }

    /// Puts a build of `product` in place, writable by others, as a linker does under a umask of 0.
    private static func installWritableByOthers(_ product: String, in lab: SwapLab) throws {
        let staging = try lab.directory.file(
            "libGreeter.so.tmp", containing: BuildProducts.bytes(of: "lib\(product).so"))
        try #require(chmod(staging, 0o666) == 0)
        try #require(rename(staging, lab.library) == 0)
    }
}
