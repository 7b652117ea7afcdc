import FlowKit
import FlowKitTesting
import Testing

/// `addDeclaredRoutes()` and `addDeclaredServices()`: a plugin's tests take the routes and the services to
/// start its description declares, as a manifest that discovers it does, rather than list them again.
@MainActor
struct FlowHarnessDeclarationsTests {
    @Test func theDeclaredRoutesAreRoutedEachFromItsModuleAndAChildFlowsAreLeftOut() {
        let harness = FlowHarness(plugin: trip)

        harness.addDeclaredRoutes()

        #expect(harness.send("trip.show") == .handled(manager: "Show"))
        #expect(harness.top == "trip")
        #expect(harness.send("trip.show", from: "settings") == .handled(manager: "FromSettings"))
        #expect(harness.send("trip.page") == .unhandled, "the picker flow's own route is not the app's")
        // A route given after it fakes the declared one.
        harness.route("trip.show", to: ManagerFactory("Fake", ShowManager.self))
        #expect(harness.send("trip.show") == .handled(manager: "Fake"))
    }

    @Test func aRouteToAManagerThePluginDoesNotExportIsAnIssue() {
        let broken = PluginDescription(
            name: "broken", version: "1.0.0", managers: [show],
            routes: [DeclaredRoute("broken.show", manager: "Shwo"), DeclaredRoute("trip.show", manager: show)])
        let harness = FlowHarness(plugin: broken)

        withKnownIssue {
            harness.addDeclaredRoutes()
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "plugin 'broken' declares a route for 'broken.show' to manager 'Shwo', which it does not export; it exports: Show"
            ]
        }

        #expect(harness.send("broken.show") == .unhandled)
        #expect(harness.send("trip.show") == .handled(manager: "Show"), "the other routes are taken")
    }

    /// Two plugins declaring one route: it fails, as a host's does; a route of a manager its plugin does not
    /// export is no conflict, and leaves the other plugin's route to it.
    @Test func aRouteTwoPluginsDeclareIsAnIssueAndFails() {
        let message = "plugins 'trip' and 'other' both declare a route for 'trip.show'; a host routes neither"
        let other = PluginDescription(
            name: "other", version: "1.0.0", managers: [show], routes: [DeclaredRoute("trip.show", manager: show)])
        let harness = FlowHarness(plugins: [trip, other])

        withKnownIssue {
            harness.addDeclaredRoutes()
        } matching: { issue in
            issue.comments.map(\.rawValue) == [message]
        }

        #expect(harness.send("trip.show") == .failed(FlowError(message)))
        let unexported = PluginDescription(
            name: "first", version: "1.0.0", managers: [], routes: [DeclaredRoute("trip.show", manager: show)])
        let second = FlowHarness(plugins: [unexported, trip])
        withKnownIssue {
            second.addDeclaredRoutes()
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "plugin 'first' declares a route for 'trip.show' to manager 'Show', which it does not export; it exports none"
            ]
        }
        #expect(second.send("trip.show") == .handled(manager: "Show"))
    }

    @Test func aHarnessWithoutAPluginDescriptionHasNothingToTake() {
        let harness = FlowHarness()

        withKnownIssue {
            harness.addDeclaredRoutes()
            harness.addDeclaredServices()
        } matching: { issue in
            issue.comments.first?.rawValue.hasSuffix(
                "the harness has no plugin description; make it with FlowHarness(plugin:)") == true
        }
    }

    /// As a host starts them: the plugins each after those they require, then by name, whatever order the
    /// harness was given them in; a service asked for twice starts once.
    @Test func thePluginsServicesStartInTheOrderAHostStartsThem() {
        let auth = PluginDescription(
            name: "zauth", version: "1.0.0", managers: [], services: [session],
            startServices: [ServiceStart(session), ServiceStart(session)])
        let booking = PluginDescription(
            name: "booking", version: "1.0.0", managers: [], services: [store], startServices: [ServiceStart(store)],
            requires: ["zauth": ">=1.0"])
        let harness = FlowHarness(plugins: [booking, auth])

        harness.addDeclaredServices()
        harness.start()

        #expect(
            harness.events.compactMap { if case .serviceStarted(let name) = $0 { name } else { nil } }
                == ["SessionService", "StoreService"], "booking requires zauth, named after it")
    }

    @Test func theServicesToStartAreAddedEachAfterThoseItNames() {
        let harness = FlowHarness(plugin: trip)

        harness.addDeclaredServices()
        harness.start()

        #expect(
            harness.events.compactMap { if case .serviceStarted(let name) = $0 { name } else { nil } }
                == ["SessionService", "StoreService"], "Store waits for trip.Session, declared after it")
    }

    @Test func aServiceToStartThePluginDoesNotExportIsAnIssue() {
        let misspelt = PluginDescription(
            name: "misspelt", version: "1.0.0", managers: [], services: [session, store],
            startServices: [ServiceStart("Sesion"), ServiceStart(store)])
        let harness = FlowHarness(plugin: misspelt)

        withKnownIssue {
            harness.addDeclaredServices()
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "plugin 'misspelt' asks to start its service 'Sesion', which it does not export; it exports: Session, Store"
            ]
        }
        harness.start()

        #expect(
            harness.events.compactMap { if case .serviceStarted(let name) = $0 { name } else { nil } } == [
                "StoreService"
            ])
    }

    @Test func servicesThatWaitForEachOtherAreAnIssueAndStillAdded() {
        let tangled = PluginDescription(
            name: "tangled", version: "1.0.0", managers: [], services: [session, store],
            startServices: [
                ServiceStart(store, after: ["tangled.Session"]), ServiceStart(session, after: ["tangled.Store"]),
            ])
        let harness = FlowHarness(plugin: tangled)

        withKnownIssue {
            harness.addDeclaredServices()
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "services wait for each other to start: tangled.Store, tangled.Session; added in the order declared"
            ]
        }
        harness.start()

        #expect(
            harness.events.compactMap { if case .serviceStarted(let name) = $0 { name } else { nil } }
                == ["StoreService", "SessionService"])
    }
}

private let show = ManagerFactory("Show", ShowManager.self)
private let session = ServiceFactory("Session") { SessionService() }
private let store = ServiceFactory("Store") { StoreService() }

/// Routes `trip.show` to `Show`, from `settings` to `FromSettings`, and `trip.page` in its picker flow only;
/// starts `Store` after `Session`, which it declares second.
private let trip = PluginDescription(
    name: "trip", version: "1.0.0",
    managers: [show, ManagerFactory("FromSettings", ShowManager.self), ManagerFactory("Page", ShowManager.self)],
    services: [session, store],
    routes: [
        DeclaredRoute("trip.show", manager: show),
        DeclaredRoute("trip.show", from: "settings", manager: "FromSettings"),
        DeclaredRoute("trip.page", manager: ManagerFactory("Page", ShowManager.self), inChildFlow: "picker"),
    ],
    startServices: [ServiceStart(store, after: ["trip.Session"]), ServiceStart(session)])

/// Presents `trip`.
private final class ShowManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module("trip"), .inline)
    }
}

private final class SessionService: CoordinatorServiceProtocol {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}

private final class StoreService: CoordinatorServiceProtocol {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}
