import FlowKit
import Testing

/// What the harness's plugin descriptions declare for a manifest that discovers them, taken as that
/// manifest takes it: their routes and the services they ask to start (their guards:
/// ``addDeclaredGuards(sourceLocation:)``).
extension FlowHarness {
    /// Routes the requests the plugin descriptions declare (``PluginDescription/routes``), each to its own
    /// plugin's manager, from its module only when it names one, as a manifest that discovers the plugins
    /// routes them (FlowKit 1.7). Routes a child flow's own mapping holds (``DeclaredRoute/childFlow``) are
    /// the flow's, and left out. Route a request again after it to fake its manager.
    ///
    /// A route to a manager its plugin does not export, or one two plugins both declare (a host routes
    /// neither), records an `Issue` at `sourceLocation`; the second of two is left out.
    public func addDeclaredRoutes(sourceLocation: SourceLocation = #_sourceLocation) {
        var declarers: [RequestRoute: String] = [:]
        for plugin in plugins {
            for declared in plugin.routes where declared.childFlow == nil {
                let route =
                    declared.from.map { RequestRoute(declared.request, from: $0) } ?? RequestRoute(declared.request)
                if let first = declarers[route] {
                    Issue.record(
                        "plugins '\(first)' and '\(plugin.name)' both declare a route for \(Self.describe(declared)); a host routes neither",
                        sourceLocation: sourceLocation)
                    continue
                }
                declarers[route] = plugin.name
                guard let factory = plugin.manager(named: declared.manager) else {
                    let exported = [(plugin.name, plugin.managers.map(\.name))]
                    Issue.record(
                        "plugin '\(plugin.name)' declares a route for \(Self.describe(declared)): \(Self.notExported("manager", declared.manager, exported))",
                        sourceLocation: sourceLocation)
                    continue
                }
                coordinator.mapping[route] = factory
            }
        }
    }

    /// Adds the services the plugin descriptions ask to start (``PluginDescription/startServices``), as
    /// ``addService(named:sourceLocation:)`` does, in the order a host starts them: each after the services
    /// it names in `after` (`auth.Session`) that are among them, else in the order declared (FlowKit 1.7).
    ///
    /// A service its plugin does not export, or services that wait for each other, record an `Issue` at
    /// `sourceLocation`; those waiting are added in the order declared.
    public func addDeclaredServices(sourceLocation: SourceLocation = #_sourceLocation) {
        typealias Start = (name: String, after: [String], factory: ServiceFactory, plugin: PluginDescription)
        var pending: [Start] = []
        for plugin in plugins {
            for start in plugin.startServices {
                guard let factory = plugin.service(named: start.name) else {
                    let exported = [(plugin.name, plugin.services.map(\.name))]
                    Issue.record(
                        "plugin '\(plugin.name)' asks to start its service '\(start.name)': \(Self.notExported("service", start.name, exported))",
                        sourceLocation: sourceLocation)
                    continue
                }
                pending.append(("\(plugin.name).\(start.name)", start.after, factory, plugin))
            }
        }
        var ordered: [Start] = []
        while !pending.isEmpty {
            let waiting = Set(pending.map(\.name))
            guard let next = pending.firstIndex(where: { $0.after.allSatisfy { !waiting.contains($0) } }) else {
                Issue.record(
                    "services wait for each other to start: \(pending.map(\.name).joined(separator: ", ")); added in the order declared",
                    sourceLocation: sourceLocation)
                ordered += pending
                break
            }
            ordered.append(pending.remove(at: next))
        }
        for start in ordered { addService(start.factory, of: start.plugin) }
    }

    /// `request` (from `module`), as a route's issue names it.
    private static func describe(_ route: DeclaredRoute) -> String {
        "'\(route.request)'" + (route.from.map { " from '\($0)'" } ?? "")
    }
}
