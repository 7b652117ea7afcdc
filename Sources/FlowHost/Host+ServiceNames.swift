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
        case .serviceStarted(let type): .serviceStarted(serviceName(ofType: type))
        case .serviceStopped(let type): .serviceStopped(stoppedServiceName(ofType: type))
        case .lifecycleDelivered(let lifecycleEvent, let type):
            .lifecycleDelivered(lifecycleEvent, to: serviceName(ofType: type))
        case .serviceProblem(let problem):
            if case .stopTimedOut = problem.kind {
                .serviceProblem(
                    ServiceProblem(service: stoppedServiceName(ofType: problem.service), kind: problem.kind))
            } else {
                .serviceProblem(namingService(problem))
            }
        default: event
        }
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
        let names = runningServices.filter { Self.typeName(of: $0.service) == type }.map(\.ref)
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
