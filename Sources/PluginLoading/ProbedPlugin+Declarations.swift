import FlowKit
import FlowManifest

/// What `flowhost validate` and `flowhost inspect` check of what a plugin declares: that the routes, services to
/// start and modules it declares name managers and services it exports.
extension ProbedPlugin {
    /// Every name the plugin's declarations use that it does not export, one error each: its routes' managers
    /// (a child flow's included), the services it asks to start, its modules' managers. What `inspect`
    /// reports; `validate` reports each too (the routes and services to start when a manifest discovers the
    /// plugin, as composing it meets them).
    package var inconsistencies: [PluginLoadError] {
        (routes + childFlowRoutes).compactMap(routeProblem) + startServices.compactMap(startProblem)
            + declarationProblems
    }

    /// The error of a route the plugin declares to a manager it does not export; `nil` when it exports it.
    package func routeProblem(_ route: DeclaredRoute) -> PluginLoadError? {
        guard !managers.contains(where: { $0.name == route.manager }) else { return nil }
        let from = route.from.map { " from \(quoted($0.rawValue))" } ?? ""
        let flow = route.childFlow.map { " in child flow '\($0.rawValue)'" } ?? ""
        return PluginLoadError(
            file: path, kind: .unknownManager,
            message:
                "plugin '\(name)' declares a route for \(quoted(route.request.rawValue))\(from)\(flow) to manager '\(route.manager)', which it does not export; it exports: \(exportedManagers)"
        )
    }

    /// The error of a service the plugin asks to start and does not export; `nil` when it exports it.
    package func startProblem(_ start: ServiceStart) -> PluginLoadError? {
        guard !services.contains(start.name) else { return nil }
        return PluginLoadError(
            file: path, kind: .unknownService,
            message:
                "plugin '\(name)' asks to start service '\(start.name)', which it does not export; it exports: \(services.isEmpty ? "nothing" : services.joined(separator: ", "))"
        )
    }

    /// The managers' names for a message: `nothing` when there are none.
    private var exportedManagers: String {
        managers.isEmpty ? "nothing" : managers.map(\.name).joined(separator: ", ")
    }

    /// One error per declared module's manager that the plugin does not export, naming the plugin, the
    /// module and the manager.
    package var declarationProblems: [PluginLoadError] {
        let exported = Set(managers.map(\.name))
        var problems: [PluginLoadError] = []
        for module in modules {
            for manager in module.managers where !exported.contains(manager) {
                problems.append(
                    PluginLoadError(
                        file: path, kind: .unknownManager,
                        message:
                            "plugin '\(name)' declares module '\(module.module)' presented by manager '\(manager)', which it does not export; it exports: \(exportedManagers)"
                    ))
            }
        }
        return problems
    }
}
