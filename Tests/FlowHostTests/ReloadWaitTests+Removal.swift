import Glibc
import Testing

@testable import FlowHost
@testable import FlowShell

/// `wait reload PLUGIN` of a plugin discovery removed: no generation comes while its library is gone, so the
/// wait says so at once rather than waiting out its time.
extension ReloadWaitTests {
    @Test func waitForAPluginRemovedFailsAtOnceAndWaitsForItOnceItsLibraryIsBack() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let shell = HostShell(host: host)
        try lab.remove("libGreeter.so")
        host.rediscover()

        let removed = await shell.perform("wait reload greeter 2")

        #expect(
            removed.status == .error("wait reload: plugin 'greeter' was removed; its library \(library) is gone"),
            "\(removed.status)")
        #expect(await shell.perform("wait reload greeter 2").status == removed.status, "said again while it is gone")

        // Back, not read yet: the wait is for its discovery.
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        async let back = shell.perform("wait reload greeter 20")
        try await Self.untilPending(shell)
        host.rediscover()
        #expect(await back.lines.first == "plugin 'greeter': discovered, its routes are live")
    }

    @Test func waitForAPluginRemovedWhileItWaitsEndsWithWhy() async throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        let library = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)

        async let waited = shell.perform("wait reload auth 5")
        try await Self.untilPending(shell)
        try #require(unlink(library) == 0)
        host.rediscover()

        #expect(
            await waited.status == .error("wait reload: plugin 'auth' was removed; its library \(library) is gone"))
    }
}
