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

    /// One whose start timed out never ran: its plugin's removal line said it stopped among the others, and its
    /// name waited in the queue of those stopping for a `serviceStopped` FlowKit never says.
    @Test
    func anAsyncServiceThatDidNotStartIsNotSaidToStopWhenItsPluginGoes() async throws {
        let lab = try DropInLab(members: #""services": [{"plugin": "trip", "service": "Bookings"}]"#)
        let library = try lab.add("libTripPlugin.so")
        let host = try lab.host()
        host.coordinator.serviceTimeout = .milliseconds(20)  // the start takes 200
        let services = record(host)
        await host.coordinator.serviceWorkDone()
        try #require(services.events == ["problem trip.Bookings"])
        host.coordinator.serviceTimeout = .seconds(600)  // the stop takes 50

        try lab.remove("libTripPlugin.so")
        let removal = host.rediscover(changed: library).map(\.description)
        await host.coordinator.serviceWorkDone()

        #expect(
            removal.first == "plugin 'trip' removed (\(library)): routes trip.list, trip.booking fail until it is back",
            "\(removal)")
        #expect(services.events == ["problem trip.Bookings"])
        #expect(host.stoppingServiceNames.isEmpty && host.servicesNotStarted.isEmpty)
    }

    /// Its plugin gone while it was still starting, a service whose start then times out is named by its manifest
    /// name, taken from the queue of those stopping, where nothing else would take it.
    @Test
    func anAsyncServiceWhosePluginWentWhileItStartedIsNamedWhenItsStartFails() async throws {
        let lab = try DropInLab(members: #""services": [{"plugin": "trip", "service": "Bookings"}]"#)
        let library = try lab.add("libTripPlugin.so")
        let host = try lab.host()
        host.coordinator.serviceTimeout = .milliseconds(100)  // the start takes 200
        let services = record(host)

        try lab.remove("libTripPlugin.so")
        _ = host.rediscover(changed: library)
        await host.coordinator.serviceWorkDone()

        #expect(services.events == ["problem trip.Bookings"])
        #expect(host.stoppingServiceNames.isEmpty)
    }

    /// What `host` says of its services from now on: `started`, `stopped` or `problem`, then the name.
    private func record(_ host: Host) -> ServiceEvents {
        let events = ServiceEvents()
        host.onFlowEvent = { event in
            switch event {
            case .serviceStarted(let name): events.events.append("started \(name)")
            case .serviceStopped(let name): events.events.append("stopped \(name)")
            case .serviceProblem(let problem): events.events.append("problem \(problem.service)")
            default: break
            }
        }
        return events
    }
}

@MainActor
private final class ServiceEvents {
    var events: [String] = []
}
