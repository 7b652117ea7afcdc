import FlowKit
import FlowManifest
import Testing

@testable import FlowHost
@testable import FlowShell

/// A reloaded manifest that discovers its plugins is checked, once its routes are composed, as `validate` and
/// `run`'s start check it: start requests, deep links' first steps and guard redirects that no composed route
/// handles reject the edit, as the parser's errors reject a listing manifest's, with the lines `validate`
/// prints; the host keeps the manifest it had, and takes the next good edit.
@MainActor
struct DiscoveredManifestReloadTests {
    /// An edit with one of each unrouted request, which also leaves `onboarding.show` out: taken, that
    /// request would stop being routed.
    private static let unrouted = #"""
        "start": ["lanch"], "exclude": {"routes": [{"request": "onboarding.show"}]},
        "deepLinks": [{"pattern": "demo://start", "requests": ["lanch"]}],
        "guards": [{"requests": ["launch"], "unless": "ready", "redirect": "lanch"}]
        """#

    @Test func underWatchAnEditWhoseRequestsNoComposedRouteHandlesIsRejectedAndTheNextGoodOneTaken() async throws {
        let lab = try DropInLab(members: #""start": ["launch"]"#)
        try lab.add("libWelcomePlugin.so")
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }
        let manifest = lab.manifestPath
        let expected = [
            "\(manifest): start[0]: no route handles \"lanch\" from the app, which sends the start requests; "
                + "did you mean \"launch\"?",
            "\(manifest): deepLinks[0].requests[0]: no route handles \"lanch\", the deep link's first step; "
                + "did you mean \"launch\"?",
            "\(manifest): guards[0].redirect: no route handles \"lanch\"; did you mean \"launch\"?",
        ]

        try lab.writeManifest(members: Self.unrouted)
        let rejection = await events.nextLine()
        let validate = try lab.flowhost(["validate", manifest])

        #expect(
            rejection
                == (["manifest edit rejected, the routes in force are unchanged:"] + expected).joined(separator: "\n"))
        #expect(validate.status == 65)
        #expect(
            validate.errorLinesWithoutNotes == expected + ["\(manifest): \(expected.count) problems found"],
            "a reload says what validate says")
        #expect(
            host.coordinator.requestCoordination("onboarding.show", from: .app).isHandled, "the edit changed nothing")
        #expect(host.manifest.deepLinks.routes.isEmpty)
        #expect(host.manifest.guards.isEmpty)

        try lab.writeManifest(
            members: #""start": ["launch"], "deepLinks": [{"pattern": "demo://start", "requests": ["launch"]}]"#)
        let reload = await events.nextLine()

        #expect(reload?.hasPrefix("reloaded manifest \(manifest): ") == true, "\(reload ?? "no event")")
        #expect(host.manifest.deepLinks.routes.count == 1, "the good edit is taken")
    }

    /// An edit that names a request of a plugin still being built, saved before the build lands: rejected
    /// then, it is taken once discovery finds the plugin that routes it, rather than left unread until the
    /// manifest is saved again.
    @Test func anEditRejectedForWantOfAPluginsRoutesIsTakenWhenThePluginLands() async throws {
        let lab = try DropInLab(members: #""start": ["launch"]"#)
        try lab.add("libWelcomePlugin.so")
        let host = try lab.host()
        let events = try HostEventCollector(host)
        defer { host.stop() }

        try lab.writeManifest(
            members: #""start": ["launch"], "deepLinks": [{"pattern": "demo://signin", "requests": ["auth.signIn"]}]"#)
        let rejection = await events.nextLine()
        try lab.add("libAuthPlugin.so")
        // The edit is read again as the plugin's discovery is taken, in the same turn of the main actor.
        var lines: [String] = []
        while let line = await events.nextLine() {
            lines.append(line)
            if line.hasPrefix("discovered plugin 'auth'") { break }
        }

        #expect(rejection?.hasPrefix("manifest edit rejected") == true, "\(rejection ?? "no event")")
        try #require(host.manifest.deepLinks.routes.count == 1, "the edit is taken: \(lines)")
        let reload = await events.nextLine()
        #expect(reload == "reloaded manifest \(lab.manifestPath): 5 routes")
    }

    @Test func theShellsReloadManifestFailsForSuchAnEdit() throws {
        let lab = try DropInLab(members: #""start": ["launch"]"#)
        try lab.add("libWelcomePlugin.so")
        let host = try lab.host()
        let shell = HostShell(host: host)

        try lab.writeManifest(members: Self.unrouted)
        let reply = shell.execute("reload manifest")

        #expect(reply.status == .error("manifest rejected: 3 problems"))
        #expect(host.coordinator.requestCoordination("onboarding.show", from: .app).isHandled)
    }
}
