import Glibc
import Testing

@testable import FlowHost
@testable import FlowShell

/// `wait reload PLUGIN` of a plugin a manifest edit dropped from `plugins` or excludes: no generation comes
/// until another edit brings it back, so the wait says so at once, or when the edit comes while it waits,
/// rather than waiting out its time.
extension ReloadWaitTests {
    @Test func waitForAPluginExcludedFailsAtOnceAndOneExcludedWhileItWaitsEndsThen() async throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let shell = HostShell(host: host)
        let excluded = HostShell.Status.error(
            "wait reload: plugin 'greeter' is excluded by the manifest's exclude.plugins[0]")

        async let waited = shell.perform("wait reload greeter 5")
        try await Self.untilPending(shell)
        try lab.writeManifest(members: #""exclude": {"plugins": ["greeter"]}"#)
        #expect(host.reloadManifest().description.hasPrefix("reloaded manifest"))

        #expect(await waited.status == excluded)
        #expect(await shell.perform("wait reload greeter 2").status == excluded, "said at once after")
    }

    @Test func waitForAPluginDroppedFromTheManifestFailsAtOnceAndOneDroppedWhileItWaitsEndsThen() async throws {
        let lab = try DropInLab(members: #""plugins": {"auth": "./libAuth.so"}"#)
        _ = try lab.directory.file("libAuth.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        let host = try lab.host()
        let shell = HostShell(host: host)
        let dropped = HostShell.Status.error("wait reload: plugin 'auth' was removed from the manifest")

        async let waited = shell.perform("wait reload auth 5")
        try await Self.untilPending(shell)
        try lab.writeManifest(members: "")
        #expect(host.reloadManifest().description.hasPrefix("reloaded manifest"))

        #expect(await waited.status == dropped)
        #expect(await shell.perform("wait reload auth 2").status == dropped, "said at once after")
    }
}
