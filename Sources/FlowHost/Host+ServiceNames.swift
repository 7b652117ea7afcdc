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
            servicesNotStarted.subtract(runningRefs(ofType: type))
            return .serviceStarted(serviceName(ofType: type))
        case .serviceStopped(let type): return .serviceStopped(stoppedServiceName(ofType: type))
        case .lifecycleDelivered(let lifecycleEvent, let type):
            return .lifecycleDelivered(lifecycleEvent, to: serviceName(ofType: type))
        case .serviceProblem(let problem):
            switch problem.kind {
            case .stopTimedOut:
                return .serviceProblem(
                    ServiceProblem(service: stoppedServiceName(ofType: problem.service), kind: problem.kind))
            case .startFailed, .startTimedOut:
                return .serviceProblem(ServiceProblem(service: notStarted(ofType: problem.service), kind: problem.kind))
            @unknown default:
                return .serviceProblem(namingService(problem))
            }
        default: return event
        }
    }

    /// The manifest name of a service of type `type` whose start threw or timed out, noted as not started
    /// (``servicesNotStarted``) when it is the one running service of that type. One that stopped meanwhile (its
    /// plugin went while it started) is the first of those stopping (``stoppingServiceNames``), taken: it says
    /// no `serviceStopped` to take it.
    private func notStarted(ofType type: String) -> String {
        let refs = runningRefs(ofType: type)
        if refs.isEmpty, stoppingServiceNames[type]?.isEmpty == false { return stoppedServiceName(ofType: type) }
        if refs.count == 1 { servicesNotStarted.formUnion(refs) }
        return serviceName(ofType: type)
    }

    /// The manifest entries of the running services whose type is called `type`.
    private func runningRefs(ofType type: String) -> [Manifest.ServiceRef] {
        runningServices.filter { Self.typeName(of: $0.service) == type }.map(\.ref)
    }

    /// The manifest name of a service of type `type` that says it stopped (or did not in time): the first of
    /// those the host stops in the background because their entry or plugin went (``stoppingServiceNames``),
    /// taken; else ``serviceName(ofType:)``.
    private func stoppedServiceName(ofType type: String) -> String {
        guard var names = stoppingServiceNames[type], !names.isEmpty else { return serviceName(ofType: type) }
        let name = names.removeFirst()
        stoppingServiceNames[type] = names.isEmpty ? nil : names
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
