import FlowKit

// A test fixture: a plugin whose route needs a dependency that only an async service sets, once its start has
// awaited something (as a service opening a connection does). A host that replays a snapshot's steps before such
// a service has started queues the step, and one that builds the restored screen with the service it is
// replacing shows that service's bookings rather than the saved ones.

/// The booked trips, handed from one generation or one restore to the next; set as `trip.bookings` once started.
final class BookingsService: AsyncCoordinatorService, StateHandoff {
    /// The trips booked, oldest first.
    private(set) var trips: [String] = []
    private weak var coordinator: (any FlowCoordinator)?

    func start(with coordinator: any FlowCoordinator) async throws {
        // What a real service awaits: a connection, a file. Long enough that a replay which does not wait runs first.
        try await Task.sleep(for: .milliseconds(200))
        self.coordinator = coordinator
        coordinator.setDependency(.bookings, self)
    }

    func stop() async {
        try? await Task.sleep(for: .milliseconds(50))
        coordinator = nil
    }

    /// Books `trip`.
    func book(_ trip: String) { trips.append(trip) }

    func exportState() -> JSONValue { ["trips": .array(trips.map(JSONValue.string))] }

    func importState(_ state: JSONValue) {
        trips = state["trips"]?.array?.compactMap(\.string) ?? []
    }
}

extension TypedDependencyKey where Value == BookingsService {
    /// The started bookings service.
    static let bookings = TypedDependencyKey("trip.bookings")
}

/// Handles `trip.list`: presents `bookingList`, whose `book` action books `{"trip": "..."}` (once the service has
/// started) and whose `open` action asks for `trip.booking`.
final class BookingListManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let list = self.module(
            "bookingList",
            actions: [
                ModuleAction("book", summary: #"book {"trip": "..."}"#) { module, payload in
                    guard let trip = payload["trip"]?.string else {
                        return .failed(FlowError(#"book needs {"trip": "..."}"#))
                    }
                    guard let bookings = (module.coordination as? any FlowCoordinator)?.dependencies[.bookings] else {
                        return .failed(FlowError("trip.bookings is not set: the Bookings service has not started"))
                    }
                    bookings.book(trip)
                    return nil
                },
                .request("open", "trip.booking", summary: "show the bookings"),
            ])
        return .present(list, .inline)
    }
}

/// Handles `trip.booking`, once `trip.bookings` is set: presents `booking`, whose content is the trips booked.
final class BookingManager: FlowManager {
    override class var requirements: [DependencyKey] { [DependencyKey(.bookings)] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let bookings = try coordinator.dependencies.require(
            .bookings, hint: "the Bookings service sets it once started")
        let booking = self.module("booking", content: ["trips": .array(bookings.trips.map(JSONValue.string))])
        return .present(booking, .inline)
    }
}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(
        PluginDescription(
            name: "trip", version: "1.0.0",
            managers: [
                ManagerFactory("BookingList", BookingListManager.self), ManagerFactory("Booking", BookingManager.self),
            ],
            services: [ServiceFactory("Bookings") { BookingsService() }],
            routes: [
                DeclaredRoute("trip.list", manager: "BookingList"), DeclaredRoute("trip.booking", manager: "Booking"),
            ]))
}
