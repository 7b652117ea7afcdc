import FlowKit

/// A plugin as a probe saw it in a child process: everything `validate`, `list`, `inspect` and discovery
/// need, and none of its code.
package struct ProbedPlugin: Sendable, Hashable {
    /// One manager the plugin exports, and the dependencies it requires.
    package struct Manager: Sendable, Hashable {
        package var name: String
        package var requirements: [String]

        package init(name: String, requirements: [String]) {
            self.name = name
            self.requirements = requirements
        }
    }

    /// The library file that was probed.
    package var path: String
    package var name: String
    package var version: String
    /// The FlowKit the plugin was built against.
    package var flowKitVersion: FlowKitVersion
    /// The managers, sorted by name.
    package var managers: [Manager]
    /// The services' names, sorted.
    package var services: [String]
    /// The routes the plugin proposes to manifests, in its order (``FlowKit/PluginDescription/routes``).
    package var routes: [DeclaredRoute]
    /// The routes it declares its child flows' own mappings hold (``FlowKit/DeclaredRoute/childFlow``), in its
    /// order: for graphs and `inspect`, never taken by a manifest.
    package var childFlowRoutes: [DeclaredRoute]
    /// The services it asks to start, in its order (``FlowKit/PluginDescription/startServices``).
    package var startServices: [ServiceStart]
    /// The plugins it requires, with their version ranges as written (``FlowKit/PluginDescription/requires``).
    package var requires: [String: String]
    /// The modules its managers present and the requests each can send, in its order
    /// (``FlowKit/PluginDescription/modules``).
    package var modules: [DeclaredModule]
    /// The guards it proposes, in its order (``FlowKit/PluginDescription/guards``).
    package var guards: [DeclaredGuard]
    /// The deep links it proposes, in its order (``FlowKit/PluginDescription/deepLinks``).
    package var deepLinks: [DeclaredDeepLink]
    /// The context keys each service that declares some provides (``FlowKit/ServiceFactory/contextKeys``),
    /// by service name.
    package var contextKeys: [String: [String]] = [:]
    /// The SHA-256 of the bytes the probe loaded, so that the host loads only those bytes; `nil` from a
    /// probe or a cache entry of a flowhost that did not say.
    package var digest: String?

    package init(
        path: String, name: String, version: String, flowKitVersion: FlowKitVersion, managers: [Manager],
        services: [String],
        routes: [DeclaredRoute] = [], startServices: [ServiceStart] = [], requires: [String: String] = [:],
        guards: [DeclaredGuard] = [], deepLinks: [DeclaredDeepLink] = [], modules: [DeclaredModule] = []
    ) {
        self.path = path
        self.name = name
        self.version = version
        self.flowKitVersion = flowKitVersion
        self.managers = managers.sorted { $0.name < $1.name }
        self.services = services.sorted()
        self.routes = routes.filter { $0.childFlow == nil }
        self.childFlowRoutes = routes.filter { $0.childFlow != nil }
        self.startServices = startServices
        self.requires = requires
        self.guards = guards
        self.deepLinks = deepLinks
        self.modules = modules
    }

    /// The description of a plugin loaded in this process (the probe's own side).
    @MainActor
    package init(_ plugin: LoadedPlugin) {
        let description = plugin.description
        self.init(
            path: plugin.path, name: description.name, version: description.version,
            flowKitVersion: plugin.flowKitVersion,
            managers: description.managers.map { factory in
                Manager(name: factory.name, requirements: ((try? factory.resolve().requirements) ?? []).map(\.rawValue))
            },
            services: description.services.map(\.name), routes: description.routes,
            startServices: description.startServices, requires: description.requires,
            guards: description.guards, deepLinks: description.deepLinks, modules: description.modules)
        for service in description.services where !service.contextKeys.isEmpty {
            contextKeys[service.name] = service.contextKeys
        }
        digest = plugin.digest
    }
}
