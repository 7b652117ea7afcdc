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
    /// A route to a manager its plugin does not export is left out, and one two plugins both declare fails
    /// with that conflict as a host's does; each records an `Issue` at `sourceLocation`, as a harness with
    /// no plugin description does.
    public func addDeclaredRoutes(sourceLocation: SourceLocation = #_sourceLocation) {
        guard hasPlugins(for: "routes", sourceLocation: sourceLocation) else { return }
        var declarers: [RequestRoute: String] = [:]
        for plugin in plugins {
            for declared in plugin.routes where declared.childFlow == nil {
                let route = Self.describe(declared)
                guard let factory = plugin.manager(named: declared.manager) else {
                    Issue.record(
                        "plugin '\(plugin.name)' declares a route for \(route) to manager '\(declared.manager)', which it does not export; \(Self.exports(plugin.managers.map(\.name)))",
                        sourceLocation: sourceLocation)
                    continue
                }
                let key =
                    declared.from.map { RequestRoute(declared.request, from: $0) } ?? RequestRoute(declared.request)
                guard let first = declarers[key] else {
                    declarers[key] = plugin.name
                    self.route(declared.request, from: declared.from, to: factory)
                    continue
                }
                let conflict = FlowError(
                    "plugins '\(first)' and '\(plugin.name)' both declare a route for \(route); a host routes neither")
                Issue.record("\(conflict.message)", sourceLocation: sourceLocation)
                self.route(
                    declared.request, from: declared.from, to: ManagerFactory(name: factory.name) { throw conflict })
            }
        }
    }

    /// Adds the services the plugin descriptions ask to start (``PluginDescription/startServices``), as
    /// ``addService(named:sourceLocation:)`` does, in the order a host starts them (FlowKit 1.7): plugin by
    /// plugin, each after those it `requires` (else by name), each service after the ones it names in
    /// `after` (`auth.Session`) that are among them; a service asked for twice, once.
    ///
    /// A service its plugin does not export is left out, and services that wait for each other are added in
    /// the order declared; each records an `Issue` at `sourceLocation`, as a harness with no plugin
    /// description does.
    public func addDeclaredServices(sourceLocation: SourceLocation = #_sourceLocation) {
        guard hasPlugins(for: "services to start", sourceLocation: sourceLocation) else { return }
        typealias Start = (name: String, after: [String], factory: ServiceFactory, plugin: PluginDescription)
        var pending: [Start] = []
        for plugin in Self.inRequirementOrder(plugins) {
            for start in plugin.startServices {
                guard let factory = plugin.service(named: start.name) else {
                    Issue.record(
                        "plugin '\(plugin.name)' asks to start its service '\(start.name)', which it does not export; \(Self.exports(plugin.services.map(\.name)))",
                        sourceLocation: sourceLocation)
                    continue
                }
                let name = "\(plugin.name).\(start.name)"
                if !pending.contains(where: { $0.name == name }) {
                    pending.append((name, start.after, factory, plugin))
                }
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

    /// Whether the harness has plugin descriptions to take `what` from; records an `Issue` when it has none.
    private func hasPlugins(for what: String, sourceLocation: SourceLocation) -> Bool {
        guard plugins.isEmpty else { return true }
        Issue.record(
            "no \(what) to take: the harness has no plugin description; make it with FlowHarness(plugin:)",
            sourceLocation: sourceLocation)
        return false
    }

    /// `plugins` as a host loads them: each after the plugins it requires that are among them, ties (and
    /// plugins that require each other) by name.
    private static func inRequirementOrder(_ plugins: [PluginDescription]) -> [PluginDescription] {
        var waiting = plugins.sorted { $0.name < $1.name }
        let names = Set(plugins.map(\.name))
        var done = Set<String>()
        var placed: [PluginDescription] = []
        while !waiting.isEmpty {
            let next =
                waiting.firstIndex { plugin in
                    plugin.requires.keys.allSatisfy { done.contains($0) || !names.contains($0) }
                } ?? 0
            let plugin = waiting.remove(at: next)
            placed.append(plugin)
            done.insert(plugin.name)
        }
        return placed
    }

    /// `'request'`, and ` from 'module'` when the route names one, as an issue names a route.
    private static func describe(_ route: DeclaredRoute) -> String {
        "'\(route.request)'" + (route.from.map { " from '\($0)'" } ?? "")
    }

    /// "it exports: A, B", or "it exports none".
    private static func exports(_ names: [String]) -> String {
        names.isEmpty ? "it exports none" : "it exports: \(names.joined(separator: ", "))"
    }
}
