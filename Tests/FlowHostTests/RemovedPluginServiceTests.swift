import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// The services of a discovered plugin whose library is removed stop, each said by its manifest name, as the
/// plugin's removal line names them.
@MainActor
struct RemovedPluginServiceTests {
    /// An ``AsyncCoordinatorService`` stops in the background, after it left the host's running services: it
    /// was said by its type's name (`service BookingsService stopped`; found by a trial).
    @Test
    func anAsyncServiceOfARemovedPluginIsSaidByItsManifestName() async throws {
        let lab = try DropInLab(members: #""services": [{"plugin": "trip", "service": "Bookings"}]"#)
        let library = try lab.add("libTripPlugin.so")
        let host = try lab.host()
        // No limit on the start, which runs after this: other suites' tests may hold the main actor past the 5 s
        // default, and a service whose start timed out is not said to stop.
        host.coordinator.serviceTimeout = .seconds(600)
        var services: [String] = []
        host.onFlowEvent = { event in
            switch event {
            case .serviceStarted(let name): services.append("started \(name)")
            case .serviceStopped(let name): services.append("stopped \(name)")
            default: break
            }
        }
        await host.coordinator.serviceWorkDone()
        try #require(services == ["started trip.Bookings"])

        try lab.remove("libTripPlugin.so")
        let removal = host.rediscover(changed: library).map(\.description)
        await host.coordinator.serviceWorkDone()

        #expect(
            removal.first
                == "plugin 'trip' removed (\(library)): routes trip.list, trip.booking fail until it is back; stopped "
                + "services: trip.Bookings", "\(removal)")
        #expect(services == ["started trip.Bookings", "stopped trip.Bookings"])
    }
}
