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
        let (lab, library, host) = try trip(timeout: .milliseconds(20))  // the start takes 200
        let services = record(host)
        await host.coordinator.serviceWorkDone()
        try #require(services.events == ["trip.Bookings did not start"])
        host.coordinator.serviceTimeout = .seconds(600)  // the stop takes 50

        let removal = try await removeTrip(lab, library, from: host)

        #expect(
            removal.first == "plugin 'trip' removed (\(library)): routes trip.list, trip.booking fail until it is back",
            "\(removal)")
        #expect(services.events == ["trip.Bookings did not start"])
        #expect(host.servicesNotStarted.isEmpty)
    }

    /// Asked to stop all the same, one that did not start and does not stop in time is named by its manifest
    /// name, not its type's.
    @Test
    func anAsyncServiceThatDidNotStartOrStopInTimeIsNamedByItsManifestName() async throws {
        let (lab, library, host) = try trip(timeout: .milliseconds(20))  // the start takes 200, the stop 50
        let services = record(host)
        await host.coordinator.serviceWorkDone()

        _ = try await removeTrip(lab, library, from: host)

        #expect(services.events == ["trip.Bookings did not start", "trip.Bookings did not stop"])
        #expect(host.stoppingServiceNames.isEmpty)
    }

    /// Its plugin gone while it was still starting, a service whose start then times out is named by its manifest
    /// name, from the queue of those stopping, and noted there as not started.
    @Test
    func anAsyncServiceWhosePluginWentWhileItStartedIsNamedWhenItsStartFails() async throws {
        let (lab, library, host) = try trip(timeout: .milliseconds(100))  // the start takes 200, the stop 50
        let services = record(host)

        _ = try await removeTrip(lab, library, from: host)

        #expect(services.events == ["trip.Bookings did not start"])
        #expect(host.stoppingServiceNames["BookingsService"]?.map(\.started) == [false])
    }

    /// ... and when it starts, it is named by its manifest name too (it was said by its type's).
    @Test
    func anAsyncServiceWhosePluginWentWhileItStartedIsNamedWhenItStarts() async throws {
        let (lab, library, host) = try trip(timeout: .seconds(600))
        let services = record(host)

        _ = try await removeTrip(lab, library, from: host)

        #expect(services.events == ["started trip.Bookings", "stopped trip.Bookings"])
        #expect(host.stoppingServiceNames.isEmpty)
    }

    /// A reload replaces one that did not start with one that starts: removed before that one has started, it is
    /// said stopped, not taken for the one that did not start.
    @Test
    func aReloadedServiceIsNotTakenForTheOneBeforeItThatDidNotStart() async throws {
        let (lab, library, host) = try trip(timeout: .milliseconds(20))  // the start takes 200
        let services = record(host)
        await host.coordinator.serviceWorkDone()
        try #require(services.events == ["trip.Bookings did not start"])
        host.coordinator.serviceTimeout = .seconds(600)

        _ = host.reloadPlugin("trip", force: true)
        let removal = try await removeTrip(lab, library, from: host)

        #expect(removal.first?.hasSuffix("; stopped services: trip.Bookings") == true, "\(removal)")
        #expect(services.events == ["trip.Bookings did not start", "started trip.Bookings", "stopped trip.Bookings"])
    }

    /// Removes the trip plugin's library and has `host` see it; returns what it says of it, once the services
    /// stopping in the background are done.
    private func removeTrip(_ lab: DropInLab, _ library: String, from host: Host) async throws -> [String] {
        try lab.remove("libTripPlugin.so")
        let removal = host.rediscover(changed: library).map(\.description)
        await host.coordinator.serviceWorkDone()
        return removal
    }

    /// A discovering host with the trip plugin, whose Bookings service it starts with `timeout` (in the
    /// background, after this returns), and the plugin's library.
    private func trip(timeout: Duration) throws -> (DropInLab, String, Host) {
        let lab = try DropInLab(members: #""services": [{"plugin": "trip", "service": "Bookings"}]"#)
        let library = try lab.add("libTripPlugin.so")
        let host = try lab.host()
        host.coordinator.serviceTimeout = timeout
        return (lab, library, host)
    }

    /// What `host` says of its services from now on: `started NAME`, `stopped NAME`, `NAME did not start` or
    /// `NAME did not stop` (in time, or at all).
    private func record(_ host: Host) -> ServiceEvents {
        let events = ServiceEvents()
        host.onFlowEvent = { event in
            switch event {
            case .serviceStarted(let name): events.events.append("started \(name)")
            case .serviceStopped(let name): events.events.append("stopped \(name)")
            case .serviceProblem(let problem):
                let stop = if case .stopTimedOut = problem.kind { true } else { false }
                events.events.append("\(problem.service) did not \(stop ? "stop" : "start")")
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
