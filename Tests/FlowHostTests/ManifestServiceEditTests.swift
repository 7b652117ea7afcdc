import FlowKit
import Testing

@testable import FlowHost

/// A reload does not start or stop services (docs/authoring.md section 9): an edit of a listing manifest's
/// `services` says, on the reload's one line, that it needs a restart, rather than being silently not
/// applied.
@MainActor
struct ManifestServiceEditTests {
    static let restart = "; services changed: restart flowhost to start or stop them"

    @Test func anEditOfServicesSaysItNeedsARestart() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        let route = #"{"request": "greet", "plugin": "greeter", "manager": "Greeter"}"#

        try lab.writeManifest(
            #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeter.so"}, "pluginPath": ["."], "routes": ["#
                + route + #"], "services": [{"plugin": "greeter", "service": "Stuck"}]}"#)
        let added = host.reloadManifest()
        #expect(added.description == "reloaded manifest \(lab.manifestPath): 1 route" + Self.restart)
        #expect(host.runningServices.isEmpty, "the reload started nothing")

        let again = host.reloadManifest()
        #expect(again.description == "reloaded manifest \(lab.manifestPath): 1 route", "services as before")

        try lab.writeManifest(lab.manifest(routes: route))
        #expect(host.reloadManifest().description.hasSuffix(Self.restart), "a service taken out needs one too")
    }
}
