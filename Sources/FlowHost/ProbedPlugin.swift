import FlowKit

/// A plugin as a probe saw it in a child process: everything `validate`, `list`, `inspect` and discovery
/// need, and none of its code.
public struct ProbedPlugin: Sendable, Hashable {
    /// One manager the plugin exports, and the dependencies it requires.
    public struct Manager: Sendable, Hashable {
        public var name: String
        public var requirements: [String]

        public init(name: String, requirements: [String]) {
            self.name = name
            self.requirements = requirements
        }
    }

    /// The library file that was probed.
    public var path: String
    public var name: String
    public var version: String
    /// The FlowKit the plugin was built against.
    public var flowKitVersion: FlowKitVersion
    /// The managers, sorted by name.
    public var managers: [Manager]
    /// The services' names, sorted.
    public var services: [String]
    /// The routes the plugin proposes, in its order (``FlowKit/PluginDescription/routes``).
    public var routes: [DeclaredRoute]
    /// The services it asks to start, in its order (``FlowKit/PluginDescription/startServices``).
    public var startServices: [ServiceStart]
    /// The plugins it requires, with their version ranges as written (``FlowKit/PluginDescription/requires``).
    public var requires: [String: String]
    /// The modules its managers present and the requests each can send, in its order
    /// (``FlowKit/PluginDescription/modules``).
    public var modules: [DeclaredModule]
    /// The SHA-256 of the bytes the probe loaded, so that the host loads only those bytes; `nil` from a
    /// probe or a cache entry of a flowhost that did not say.
    public var digest: String?

    public init(
        path: String, name: String, version: String, flowKitVersion: FlowKitVersion, managers: [Manager],
        services: [String],
        routes: [DeclaredRoute] = [], startServices: [ServiceStart] = [], requires: [String: String] = [:],
        modules: [DeclaredModule] = []
    ) {
        self.path = path
        self.name = name
        self.version = version
        self.flowKitVersion = flowKitVersion
        self.managers = managers.sorted { $0.name < $1.name }
        self.services = services.sorted()
        self.routes = routes
        self.startServices = startServices
        self.requires = requires
        self.modules = modules
    }

    /// The description of a plugin loaded in this process (the probe's own side).
    @MainActor
    init(_ plugin: LoadedPlugin) {
        let description = plugin.description
        self.init(
            path: plugin.path, name: description.name, version: description.version,
            flowKitVersion: plugin.flowKitVersion,
            managers: description.managers.map { factory in
                Manager(name: factory.name, requirements: ((try? factory.resolve().requirements) ?? []).map(\.rawValue))
            },
            services: description.services.map(\.name), routes: description.routes,
            startServices: description.startServices, requires: description.requires,
            modules: description.modules)
        digest = plugin.digest
    }

    /// `{"name", "version", "flowKit": "1.0", "managers": [{"name", "requires"}], "services", "routes": [{"request",
    /// "from", "manager"}], "startServices": [{"name", "after"}], "requires": {"PLUGIN": "RANGE"},
    /// "modules": [{"module", "managers", "sends": [{"request", "action"}]}], "digest"}`.
    public var json: JSONValue {
        [
            "name": .string(name), "version": .string(version), "flowKit": .string(flowKitVersion.description),
            "managers": .array(
                managers.map { ["name": .string($0.name), "requires": .array($0.requirements.map(JSONValue.string))] }),
            "services": .array(services.map(JSONValue.string)),
            "routes": .array(
                routes.map {
                    [
                        "request": .string($0.request.rawValue), "from": $0.from.map { .string($0.rawValue) } ?? .null,
                        "manager": .string($0.manager),
                    ]
                }),
            "startServices": .array(
                startServices.map { ["name": .string($0.name), "after": .array($0.after.map(JSONValue.string))] }),
            "requires": .object(requires.mapValues(JSONValue.string)),
            "modules": .array(modules.map(Self.json(of:))),
            "digest": digest.map(JSONValue.string) ?? .null,
        ]
    }

    /// The plugin described by `json` (as ``json`` writes it), found at `path`; `nil` if it is not that shape,
    /// such as a cache entry written before plugins declared routes or modules, which is then probed again.
    init?(json: JSONValue, path: String) {
        guard let name = json["name"]?.string, let version = json["version"]?.string,
            let flowKit = json["flowKit"]?.string, let flowKitVersion = PluginFlowKit.parse(flowKit.utf8),
            let managers = json["managers"]?.array, let services = json["services"]?.array,
            let routes = json["routes"]?.array, let starts = json["startServices"]?.array,
            let requires = json["requires"]?.object, let modules = json["modules"]?.array
        else { return nil }
        var parsedManagers: [Manager] = []
        for manager in managers {
            guard let managerName = manager["name"]?.string, let requires = manager["requires"]?.array else {
                return nil
            }
            parsedManagers.append(Manager(name: managerName, requirements: requires.compactMap(\.string)))
        }
        var parsedRoutes: [DeclaredRoute] = []
        for route in routes {
            guard let request = route["request"]?.string, let manager = route["manager"]?.string else { return nil }
            let from = route["from"]?.string.map(Coordinated.init(rawValue:))
            parsedRoutes.append(DeclaredRoute(CoordinationRequestName(rawValue: request), from: from, manager: manager))
        }
        var parsedStarts: [ServiceStart] = []
        for start in starts {
            guard let service = start["name"]?.string, let after = start["after"]?.array else { return nil }
            parsedStarts.append(ServiceStart(service, after: after.compactMap(\.string)))
        }
        var parsedModules: [DeclaredModule] = []
        for module in modules {
            guard let parsed = Self.module(module) else { return nil }
            parsedModules.append(parsed)
        }
        self.init(
            path: path, name: name, version: version, flowKitVersion: flowKitVersion, managers: parsedManagers,
            services: services.compactMap(\.string), routes: parsedRoutes, startServices: parsedStarts,
            requires: requires.compactMapValues(\.string), modules: parsedModules)
        digest = json["digest"]?.string
    }

    /// `{"module", "managers": [...], "sends": [{"request", "action"}]}`, `action` `null` for a request the
    /// module sends without one.
    private static func json(of module: DeclaredModule) -> JSONValue {
        [
            "module": .string(module.module.rawValue), "managers": .array(module.managers.map(JSONValue.string)),
            "sends": .array(
                module.sends.map {
                    ["request": .string($0.request.rawValue), "action": $0.action.map(JSONValue.string) ?? .null]
                }
            ),
        ]
    }

    /// The module ``json(of:)`` wrote, or `nil` if `json` is not that shape.
    private static func module(_ json: JSONValue) -> DeclaredModule? {
        guard let name = json["module"]?.string, let managers = json["managers"]?.array,
            let sends = json["sends"]?.array
        else { return nil }
        var parsedSends: [DeclaredModule.Send] = []
        for send in sends {
            guard let request = send["request"]?.string else { return nil }
            parsedSends.append(
                DeclaredModule.Send(CoordinationRequestName(rawValue: request), action: send["action"]?.string))
        }
        return DeclaredModule(
            Coordinated(rawValue: name), presentedBy: managers.compactMap(\.string), sends: parsedSends)
    }
}
