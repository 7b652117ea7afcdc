import FlowKit
import FlowManifest

/// What ``Host/restore(_:)`` made of a ``HostSnapshot``.
package struct HostRestoration: Sendable, Hashable {
    /// How the presentation came back: each step that could not be restored, and why.
    package var report: RestorationReport
    /// The running services that took their saved state, by manifest name (`auth.Session`).
    package var restoredServices: [String]
    /// The saved service states no running service took: the manifest does not start the service, or it
    /// no longer adopts `StateHandoff`.
    package var unusedServiceStates: [String]
    /// The `name` of the manifest the snapshot was saved with.
    package var manifest: String?
}

/// Saving the host's place and coming back to it: the presentation, the services' state, the experiment
/// assignments.
extension Host {
    /// The host's place: the presentation as the requests that rebuild it, the state of each running
    /// service that adopts `StateHandoff` (by manifest name), and the experiment assignments of this run.
    package func snapshot() -> HostSnapshot {
        var flow = coordinator.snapshot()
        for (ref, service) in runningServices { flow.saveState(of: service, as: ref.reportedName) }
        return HostSnapshot(manifest: manifest.name, experiments: experiments.assignments, flow: flow)
    }

    /// Starts the host at `snapshot` rather than at the manifest's `start` requests: the services take
    /// their saved state and start, awaited as ``startAndWait()`` awaits them, the experiment assignments
    /// come back, then the snapshot's steps are replayed through the current routes.
    ///
    /// The steps replay once every service has started (or failed, or taken longer than the manifest's
    /// `serviceTimeout`): a route that needs a dependency an ``AsyncCoordinatorService`` sets as it starts
    /// finds it set, as it did when the snapshot was saved.
    ///
    /// The start requests are not sent: the steps already hold the one that began the saved session when
    /// its screens are still shown, and sending it again would only be replaced.
    ///
    /// - Throws: ``FlowError`` when the snapshot's version is not one this flowhost reads; the host is
    ///   not started.
    @discardableResult
    package func start(restoring snapshot: HostSnapshot) async throws(FlowError) -> HostRestoration {
        try Self.check(snapshot)
        var restored: [String] = []
        for (ref, service) in runningServices {
            // A service that crashes taking its state is laid at its door (see ``trackingService``).
            let took = trackingService(ref, doing: "importState") {
                snapshot.flow.restoreState(of: service, as: ref.reportedName)
            }
            if took { restored.append(ref.reportedName) }
        }
        experiments.restore(snapshot.experiments)
        // This host goes on with the run that saved the snapshot (a supervised restart, `run --restore`): the
        // subjects exposed there count in its stats, as the requests its steps replay do.
        relay.changeStats { stats in
            for (experiment, subjects) in snapshot.experiments {
                for variant in subjects.values { stats.exposures[experiment, default: [:]][variant, default: 0] += 1 }
            }
        }
        await coordinator.startAndWait()
        return HostRestoration(
            report: try coordinator.restore(snapshot.flow), restoredServices: restored,
            unusedServiceStates: unused(snapshot, restored), manifest: snapshot.manifest)
    }

    /// Brings the running host back to `snapshot`, as ``start(restoring:)`` brings a new one: what is
    /// presented goes, every running service is replaced by a new one of its plugin's current generation
    /// that takes its saved state (or none), the experiment assignments are the snapshot's, and its steps
    /// are replayed. Plugin generations, routes and stats are kept. Starts a host that was not started.
    ///
    /// The steps replay once the services replaced have stopped and their replacements have started, each
    /// awaited at most the manifest's `serviceTimeout` when it is an ``AsyncCoordinatorService``: the screens
    /// come back with the new services, not with the ones they replace.
    ///
    /// - Throws: ``FlowError`` when the snapshot's version is not one this flowhost reads; nothing changes.
    @discardableResult
    package func restore(_ snapshot: HostSnapshot) async throws(FlowError) -> HostRestoration {
        guard coordinator.isRunning else { return try await start(restoring: snapshot) }
        try Self.check(snapshot)
        var restored: [String] = []
        for index in runningServices.indices {
            let (ref, old) = runningServices[index]
            // The plugin is loaded (it provided the running service), so only a vanished export fails here.
            guard let new = try? registry.service(ref.service, in: ref.plugin).make() else { continue }
            let state = snapshot.flow.services[ref.reportedName]
            let replaced = trackingService(ref, doing: "importState") {
                coordinator.replaceService(old, with: new, importing: state)
            }
            if replaced {
                runningServices[index].service = new
                servicesNotStarted.remove(ref)
                if state != nil, new is any StateHandoff { restored.append(ref.reportedName) }
            }
        }
        // The old async services stop and the new ones start in the background: awaited, so that the steps
        // replay with the new ones started (their dependencies set) and none of them meets an old one stopping.
        await coordinator.serviceWorkDone()
        experiments.restore(snapshot.experiments)
        return HostRestoration(
            report: try coordinator.restore(snapshot.flow), restoredServices: restored,
            unusedServiceStates: unused(snapshot, restored), manifest: snapshot.manifest)
    }

    private static func check(_ snapshot: HostSnapshot) throws(FlowError) {
        guard (1...HostSnapshot.currentVersion).contains(snapshot.version) else {
            throw FlowError(
                "snapshot version \(snapshot.version) is not one this flowhost reads (1 to \(HostSnapshot.currentVersion))"
            )
        }
        guard (1...FlowSnapshot.currentVersion).contains(snapshot.flow.version) else {
            throw FlowError(
                "flow snapshot version \(snapshot.flow.version) is not one this FlowKit reads (1 to \(FlowSnapshot.currentVersion))"
            )
        }
    }

    private func unused(_ snapshot: HostSnapshot, _ restored: [String]) -> [String] {
        snapshot.flow.services.keys.filter { !restored.contains($0) }.sorted()
    }
}
