import FlowKit
import FlowManifest

/// ``Host/typeName(of:)``'s names, by type.
@MainActor private var serviceTypeNames: [ObjectIdentifier: String] = [:]

/// Services named as the manifest names them (`auth.Session`), where FlowKit knows only their types.
extension Host {
    /// `event` with any service named as the manifest names it (`auth.Session`) rather than by its type
    /// (`SessionService`), which is all FlowKit knows.
    func namingServices(_ event: FlowEvent) -> FlowEvent {
        switch event {
        case .serviceStarted(let type):
            let refs = runningRefs(ofType: type)
            servicesNotStarted.subtract(refs)
            // Its plugin gone while it started, it is the first of those stopping that is said to have started.
            let stopping = refs.isEmpty ? stoppingServiceNames[type]?.first(where: \.started)?.name : nil
            return .serviceStarted(stopping ?? serviceName(ofType: type))
        case .serviceStopped(let type):
            return .serviceStopped(stoppedServiceName(ofType: type, saidOnlyIfStarted: true))
        case .lifecycleDelivered(let lifecycleEvent, let type):
            return .lifecycleDelivered(lifecycleEvent, to: serviceName(ofType: type))
        case .serviceProblem(let problem):
            switch problem.kind {
            case .stopTimedOut:
                return .serviceProblem(
                    ServiceProblem(
                        service: stoppedServiceName(ofType: problem.service, saidOnlyIfStarted: false),
                        kind: problem.kind))
            case .startFailed, .startTimedOut:
                return .serviceProblem(ServiceProblem(service: notStarted(ofType: problem.service), kind: problem.kind))
            @unknown default:
                return .serviceProblem(namingService(problem))
            }
        default: return event
        }
    }

    /// The manifest name of a service of type `type` whose start threw or timed out, noted as not started
    /// (``servicesNotStarted``) when it is the one running service of that type. One stopping meanwhile (its
    /// plugin went while it started) is the first of those stopping said to have started, noted as not started:
    /// it says no `serviceStopped` to take its name.
    private func notStarted(ofType type: String) -> String {
        let refs = runningRefs(ofType: type)
        if refs.isEmpty, let index = stoppingServiceNames[type]?.firstIndex(where: \.started) {
            stoppingServiceNames[type]?[index].started = false
            return stoppingServiceNames[type]?[index].name ?? type
        }
        if refs.count == 1 { servicesNotStarted.formUnion(refs) }
        return serviceName(ofType: type)
    }

    /// The manifest entries of the running services whose type is called `type`.
    private func runningRefs(ofType type: String) -> [Manifest.ServiceRef] {
        runningServices.filter { Self.typeName(of: $0.service) == type }.map(\.ref)
    }

    /// The manifest name of a service of type `type` that says it stopped (or did not in time): the first of
    /// those the host stops in the background because their entry or plugin went (``stoppingServiceNames``),
    /// taken; else ``serviceName(ofType:)``. A service that did not start says it stopped only when its stop
    /// timed out: `saidOnlyIfStarted` (a `serviceStopped`) passes over those before the first that started,
    /// which stopped silently (they stop in the order they were queued).
    private func stoppedServiceName(ofType type: String, saidOnlyIfStarted: Bool) -> String {
        guard var stopping = stoppingServiceNames[type] else { return serviceName(ofType: type) }
        if saidOnlyIfStarted { stopping = Array(stopping.drop { !$0.started }) }
        guard !stopping.isEmpty else {
            stoppingServiceNames[type] = nil
            return serviceName(ofType: type)
        }
        let name = stopping.removeFirst().name
        stoppingServiceNames[type] = stopping.isEmpty ? nil : stopping
        return name
    }

    /// `problem` with its service named as the manifest names it.
    func namingService(_ problem: ServiceProblem) -> ServiceProblem {
        var problem = problem
        problem.service = serviceName(ofType: problem.service)
        return problem
    }

    /// The manifest name of the running service whose type is called `type`; several names joined with
    /// "or" when services of different plugins share a type name; `type` itself when none matches.
    func serviceName(ofType type: String) -> String {
        let names = runningRefs(ofType: type)
        return names.isEmpty ? type : names.map(\.reportedName).joined(separator: " or ")
    }

    /// The name of `service`'s type, as `String(describing:)` writes it, and as FlowKit names the service in
    /// its events.
    ///
    /// Written once per type for the whole process and kept: `String(describing:)` of a type reflects on it,
    /// some ten thousand instructions, and every service event compares every running service's type name
    /// (a `--subjects` run spent a tenth of its time here). A type never goes stale: a plugin's image stays
    /// loaded for the life of the process, a reloaded plugin's types are other types.
    static func typeName(of service: any CoordinatorServiceProtocol) -> String {
        let type = Swift.type(of: service)
        if let known = serviceTypeNames[ObjectIdentifier(type)] { return known }
        let name = String(describing: type)
        serviceTypeNames[ObjectIdentifier(type)] = name
        return name
    }
}
