import FlowKit
import FlowManifest
import PluginLoading
import Testing

@testable import FlowHost

/// What a running host says of the discovered plugins that come and go: the lines it reports, and `stats`.
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

    @Test func aManifestEditThatRoutesADiscoveredPluginsManagerNamesThatRouteOnly() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(
            members: #""routes": [{"request": "hello", "plugin": "greeter", "manager": "Greeter"}]"#)
        host.reloadManifest()

        #expect(events.lines == ["reloaded manifest \(lab.manifestPath): 2 routes; added route: hello"])
        #expect(host.coordinator.requestCoordination("hello", from: .app).isHandled)
    }

    @Test func aManifestRouteThatOverridesADiscoveredOneIsSaidSentElsewhereBothWays() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(members: #""routes": [{"request": "greet", "plugin": "greeter", "manager": "Poller"}]"#)
        host.reloadManifest()
        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 1 route; sent elsewhere: greet (to greeter.Poller)",
                "reloaded manifest \(lab.manifestPath): 1 route; sent elsewhere: greet (to greeter.Greeter)",
            ])
    }

    @Test func aManifestThatTurnsToDiscoveringTheSameRoutesChangesNone() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        try lab.writeListingGreeter(routing: "greet", to: "Greeter")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(events.lines == ["reloaded manifest \(lab.manifestPath): 1 route"])
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
    }

    @Test func aManifestThatTurnsToDiscoveringNamesTheRouteItsPluginSendsElsewhere() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        try lab.writeListingGreeter(routing: "greet", to: "Poller")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 1 route; sent elsewhere: greet (to greeter.Greeter)"
            ])
    }

    @Test func aManifestThatTurnsToListingNamesTheRoutesOfThePluginsItNoLongerDiscovers() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeListingGreeter(routing: "hello", to: "Greeter")
        host.reloadManifest()

        #expect(
            events.lines == ["reloaded manifest \(lab.manifestPath): 1 route; added route: hello; removed route: greet"]
        )
    }

    @Test func aRouteTheManifestExcludesIsSaidRemovedAndBack() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(members: #""exclude": {"routes": [{"request": "greet"}]}"#)
        host.reloadManifest()
        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 0 routes; removed route: greet",
                "reloaded manifest \(lab.manifestPath): 1 route; added route: greet",
            ])
    }

    @Test func aPluginExcludedByAManifestEditIsReportedAsExcludedNotRemoved() throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host, watch: false)

        try lab.writeManifest(members: #""exclude": {"plugins": ["greeter"]}"#)
        host.reloadManifest()

        #expect(
            events.lines == [
                "reloaded manifest \(lab.manifestPath): 0 routes",
                "plugin 'greeter' excluded by exclude.plugins[0] (\(path)): route greet is no longer routed to it",
            ])
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .unhandled, "left out, not failing")
        #expect(host.statsLines.contains("  greeter: excluded, 1 image"), "\(host.statsLines)")
    }

    /// Excluded, rebuilt, then let back in by another edit: the plugin is reloaded from what its file holds now.
    /// The image loaded before it was excluded served again, while the routes went live from the new build's
    /// declarations (`send bye` found a route, and V1 exported no `Farewell`).
    @Test func aPluginLetBackInAfterAnExclusionIsReloadedFromItsFileAsItIsNow() throws {
        let lab = try DropInLab()
        let path = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        let events = try HostEventCollector(host, watch: false)
        try lab.writeManifest(members: #""exclude": {"plugins": ["greeter"]}"#)
        host.reloadManifest()
        try lab.replace("libGreeter.so", with: "libGreeterPluginV2.so")

        try lab.writeManifest(members: "")
        host.reloadManifest()

        #expect(
            events.lines.last?.hasPrefix("reloaded plugin 'greeter': generation 2 from \(path)") == true,
            "\(events.lines)")
        let bye = host.coordinator.requestCoordination("bye", from: .app)
        #expect(bye.isHandled, "\(bye)")
    }

    @Test func statsSaysARemovedPluginIsRemovedNotLoaded() throws {
        let lab = try DropInLab()
        try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        #expect(host.statsLines.contains("  greeter: loaded, 1 image"))

        try lab.remove("libGreeter.so")
        host.rediscover()

        #expect(host.statsLines.contains("  greeter: removed, 1 image"), "\(host.statsLines)")
        #expect(host.statsJSON["plugins"]?["greeter"] == ["status": "removed", "images": 1])
    }

    @Test func statsSaysAPluginRefusedOnceItsRequirementIsRemovedIsRefused() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.add("libSettingsPlugin.so")
        let host = try lab.host()  // both start services, so both are loaded
        #expect(host.statsLines.contains("  settings: loaded, 1 image"), "\(host.statsLines)")

        try lab.remove("libAuthPlugin.so")
        host.rediscover()

        #expect(host.statsLines.contains("  auth: removed, 1 image"), "\(host.statsLines)")
        #expect(host.statsLines.contains("  settings: refused, 1 image"), "\(host.statsLines)")
        #expect(host.statsJSON["plugins"]?["settings"]?["status"] == "refused")
    }

    @Test func aPluginThatServedRefusedForAnUnmetRequirementNamesTheServicesThatStoppedWithIt() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.add("libSettingsPlugin.so")
        let host = try lab.host()
        try #require(host.runningServices.map(\.ref.reportedName) == ["auth.Session", "settings.Analytics"])

        try lab.remove("libAuthPlugin.so")
        let problems = host.rediscover().compactMap { event -> (PluginLoadError, [String])? in
            if case .discoveryProblem(let error, let services) = event { (error, services) } else { nil }
        }

        #expect(problems.map(\.0.kind) == [.unmetRequirement], "\(problems)")
        #expect(problems.first?.1 == ["settings.Analytics"], "\(problems)")
        #expect(host.runningServices.isEmpty)
    }

    @Test func theImagesOfPluginsDiscoveryTookOutOfUseAreCountedAsOldGenerationsStillMapped() throws {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.add("libSettingsPlugin.so")
        let host = try lab.host()
        #expect(host.statsJSON["reloads"]?["oldImagesMapped"] == 0)

        try lab.remove("libAuthPlugin.so")
        host.rediscover()

        // Neither image serves: auth was removed, and settings is refused without it. Both stay mapped.
        #expect(host.statsJSON["reloads"]?["oldImagesMapped"] == 2, "\(host.statsJSON)")
        #expect(
            host.statsLines.contains {
                $0.hasPrefix("plugins: 0 reloads, 0 refused, 2 images no longer serving, still mapped")
            },
            "\(host.statsLines)")

        try lab.add("libAuthPlugin.so")
        host.rediscover()

        #expect(host.statsLines.contains("  auth: loaded, 1 image"), "back, from the same bytes: \(host.statsLines)")
        #expect(host.statsJSON["reloads"]?["oldImagesMapped"] == 0, "\(host.statsJSON)")
    }
}
