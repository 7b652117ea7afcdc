import FlowKit
import Testing

@testable import FlowHost

/// What a running host says of the discovered plugins that come and go.
@MainActor
struct DropInReportTests {
    @Test func aDroppedInPluginWhoseRouteConflictsSaysSoRatherThanThatItDeclaresNone() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.add("libCatalogPlugin.so")
        let host = try lab.host()

        let path = try lab.add("libExpressPlugin.so")
        let lines = host.rediscover().map(\.description)

        #expect(
            lines.contains(
                "discovered plugin 'express' at \(path): no route goes live; set aside: catalog.create (conflicts with plugin 'catalog')"
            ), "\(lines)")
        #expect(!lines.contains { $0.contains("declares no routes") })
    }

    @Test func aPluginExcludedByAManifestEditIsReportedAsExcludedNotRemoved() throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        var lines: [String] = []
        host.onEvent = { event in
            if case .flow = event { return }
            lines.append(event.description)
        }

        try lab.writeManifest(members: #""exclude": {"plugins": ["greeter"]}"#)
        host.reloadManifest()

        #expect(
            lines == [
                "reloaded manifest \(lab.manifestPath): 0 routes",
                "plugin 'greeter' excluded by exclude.plugins[0] (\(path)): routes greet are no longer routed to it",
            ])
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .unhandled, "left out, not failing")
    }
}
