import FlowKit
import Testing

/// Saving a harness's place and restoring it, in the same harness or a new one set up the same way.
///
/// ```swift
/// let saved = harness.snapshot()
/// let next = FlowHarness(plugin: plugin)          // the same routes and services, not started
/// next.route("auth.signIn", to: "SignIn")
/// next.addService(named: "Session")
/// let report = try next.restore(saved)
/// #expect(report.isComplete)
/// #expect(next.state == harness.state)
/// ```
extension FlowHarness {
    /// The harness's place: its presentation as the requests that rebuild it (see
    /// `BaseFlowCoordinator.snapshot()`), with the state of each added service that adopts `StateHandoff`
    /// under its type name (`SessionService`; a second service of one type is `SessionService#2`).
    public func snapshot() -> FlowSnapshot {
        var snapshot = coordinator.snapshot()
        for (service, name) in namedServices { snapshot.saveState(of: service, as: name) }
        return snapshot
    }

    /// Brings this harness to `snapshot`: gives each added service its saved state, starts the harness,
    /// then replays the snapshot's steps through this harness's routes (what was presented goes first).
    /// An ``AsyncCoordinatorService`` starts in the background meanwhile, so the steps do not meet what it
    /// sets as it starts: ``restoreAndWait(_:sourceLocation:)`` awaits it first, as a host does.
    ///
    /// Services take their state before they start, so restore into a harness that has not started;
    /// restoring saved service state into a started one records an `Issue` at `sourceLocation` and leaves
    /// the services as they are.
    ///
    /// - Returns: What could not be restored, and why; the screen it came to against the saved one.
    /// - Throws: ``FlowError`` when the snapshot's version is not one this FlowKit reads.
    @discardableResult
    public func restore(
        _ snapshot: FlowSnapshot, sourceLocation: SourceLocation = #_sourceLocation
    ) throws(FlowError) -> RestorationReport {
        try Self.check(snapshot)
        if hasStarted {
            let saved = namedServices.filter { snapshot.services[$0.name] != nil }.map(\.name)
            if !saved.isEmpty {
                Issue.record(
                    "the harness has started, so its services keep their state rather than the saved state of \(saved.joined(separator: ", ")); restore into a new harness",
                    sourceLocation: sourceLocation)
            }
        } else {
            restoreServiceStates(from: snapshot)
            start()
        }
        return try coordinator.restore(snapshot)
    }

    /// ``restore(_:sourceLocation:)`` as a host restores: each added service's start awaited (an
    /// ``AsyncCoordinatorService``'s `start(with:)`, within the coordinator's `serviceTimeout`) before the
    /// steps replay, so that a step needing a dependency a service sets as it starts finds it set, and its
    /// screen shows what it would after `flowhost run --restore`. A service that fails to start, or does not
    /// start in time, records an `Issue` at `sourceLocation`; the steps are replayed all the same. In a
    /// started harness, it awaits the service work under way, then restores as ``restore(_:sourceLocation:)``
    /// does. Since FlowKit 1.6.
    ///
    /// - Returns: What could not be restored, and why; the screen it came to against the saved one.
    /// - Throws: ``FlowError`` when the snapshot's version is not one this FlowKit reads.
    @discardableResult
    public func restoreAndWait(
        _ snapshot: FlowSnapshot, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws(FlowError) -> RestorationReport {
        guard !hasStarted else {
            for problem in await services.backgroundWorkDone() {
                Issue.record("\(problem)", sourceLocation: sourceLocation)
            }
            return try restore(snapshot, sourceLocation: sourceLocation)
        }
        try Self.check(snapshot)
        restoreServiceStates(from: snapshot)
        for problem in await startAndWait() {
            Issue.record("\(problem)", sourceLocation: sourceLocation)
        }
        return try coordinator.restore(snapshot)
    }

    /// Gives each added service the state `snapshot` saved for it: under its type name, as ``snapshot()``
    /// saves it, or, for a service added by name, under the name a host gives it (`greeting.Store`), as in a
    /// snapshot `flowhost` saved.
    private func restoreServiceStates(from snapshot: FlowSnapshot) {
        for (service, name) in namedServices {
            if snapshot.restoreState(of: service, as: name) { continue }
            if let hostName = hostServiceNames[ObjectIdentifier(service)] {
                snapshot.restoreState(of: service, as: hostName)
            }
        }
    }

    /// Throws when `snapshot`'s version is not one this FlowKit reads.
    private static func check(_ snapshot: FlowSnapshot) throws(FlowError) {
        guard (1...FlowSnapshot.currentVersion).contains(snapshot.version) else {
            throw FlowError(
                "snapshot version \(snapshot.version) is not one this FlowKit reads (1 to \(FlowSnapshot.currentVersion))"
            )
        }
    }

    /// The added services with the names their state is saved under.
    private var namedServices: [(service: any CoordinatorServiceProtocol, name: String)] {
        var seen: [String: Int] = [:]
        return services.services.map { service in
            let type = String(describing: Swift.type(of: service))
            seen[type, default: 0] += 1
            return (service, seen[type] == 1 ? type : "\(type)#\(seen[type]!)")
        }
    }
}
