import FlowKit

/// How a probe's answer and the probe cache write a ``ProbedPlugin``.
extension ProbedPlugin {
    /// `{"name", "version", "flowKit": "1.0", "managers": [{"name", "requires"}], "services", "routes": [{"request",
    /// "from", "manager", "childFlow" (only for a child flow's route)}], "startServices": [{"name", "after"}], "requires": {"PLUGIN": "RANGE"},
    /// "guards": [{"name", "requests", "unless", "redirect"}], "deepLinks": [{"pattern", "requests", "fromRoot"}],
    /// "contextKeys": {"SERVICE": [KEY...]},
    /// "modules": [{"module", "managers", "sends": [{"request", "action", "opens"}]}], "digest"}`.
    package var json: JSONValue {
        [
            "name": .string(name), "version": .string(version), "flowKit": .string(flowKitVersion.description),
            "managers": .array(
                managers.map { ["name": .string($0.name), "requires": .array($0.requirements.map(JSONValue.string))] }),
            "services": .array(services.map(JSONValue.string)),
            "routes": .array(
                (routes + childFlowRoutes).map { route in
                    var members: [String: JSONValue] = [
                        "request": .string(route.request.rawValue),
                        "from": route.from.map { .string($0.rawValue) } ?? .null, "manager": .string(route.manager),
                    ]
                    if let flow = route.childFlow { members["childFlow"] = .string(flow.rawValue) }
                    return .object(members)
                }),
            "startServices": .array(
                startServices.map { ["name": .string($0.name), "after": .array($0.after.map(JSONValue.string))] }),
            "requires": .object(requires.mapValues(JSONValue.string)),
            "guards": .array(guards.map(Self.json(of:))),
            "deepLinks": .array(deepLinks.map(Self.json(of:))),
            "contextKeys": .object(contextKeys.mapValues { .array($0.map(JSONValue.string)) }),
            "modules": .array(modules.map(Self.json(of:))),
            "digest": digest.map(JSONValue.string) ?? .null,
        ]
    }

    /// The plugin described by `json` (as ``json`` writes it), found at `path`; `nil` if it is not that shape,
    /// such as a cache entry written before plugins declared routes, modules, guards or deep links, which is
    /// then probed again.
    init?(json: JSONValue, path: String) {
        guard let name = json["name"]?.string, let version = json["version"]?.string,
            let flowKit = json["flowKit"]?.string, let flowKitVersion = PluginFlowKit.parse(flowKit.utf8),
            let managers = json["managers"]?.array, let services = json["services"]?.array,
            let routes = json["routes"]?.array, let starts = json["startServices"]?.array,
            let requires = json["requires"]?.object, let modules = json["modules"]?.array,
            let guards = json["guards"]?.array?.mapAll(Self.declaredGuard),
            let deepLinks = json["deepLinks"]?.array?.mapAll(Self.declaredDeepLink),
            let contextKeys = json["contextKeys"]?.object?.mapValues({ $0.array?.mapAll(\.string) })
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
            var parsed = DeclaredRoute(
                CoordinationRequestName(rawValue: request),
                from: route["from"]?.string.map(Coordinated.init(rawValue:)),
                manager: manager)
            parsed.childFlow = route["childFlow"]?.string.map(Coordinated.init(rawValue:))
            parsedRoutes.append(parsed)
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
            requires: requires.compactMapValues(\.string), guards: guards, deepLinks: deepLinks, modules: parsedModules)
        guard !contextKeys.values.contains(where: { $0 == nil }) else { return nil }
        self.contextKeys = contextKeys.compactMapValues { $0 }
        digest = json["digest"]?.string
    }

    /// `{"module", "managers": [...], "sends": [{"request", "action", "opens"}]}`, `action` `null` for a
    /// request the module sends without one, `opens` (only when it does) the child flow an action opens.
    private static func json(of module: DeclaredModule) -> JSONValue {
        [
            "module": .string(module.module.rawValue), "managers": .array(module.managers.map(JSONValue.string)),
            "sends": .array(
                module.sends.map { send in
                    var members: [String: JSONValue] = [
                        "request": .string(send.request.rawValue), "action": send.action.map(JSONValue.string) ?? .null,
                    ]
                    if let flow = send.opens { members["opens"] = .string(flow.rawValue) }
                    return .object(members)
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
            var parsed = DeclaredModule.Send(CoordinationRequestName(rawValue: request), action: send["action"]?.string)
            parsed.opens = send["opens"]?.string.map(Coordinated.init(rawValue:))
            parsedSends.append(parsed)
        }
        return DeclaredModule(
            Coordinated(rawValue: name), presentedBy: managers.compactMap(\.string), sends: parsedSends)
    }

    /// `{"name", "requests": [PATTERN...], "unless": {"context": PATH} or {"dependency": KEY}, "redirect":
    /// REQUEST}`, a request as ``json(of:)-(CoordinationRequest)`` writes it.
    private static func json(of guarded: DeclaredGuard) -> JSONValue {
        let unless: JSONValue =
            switch guarded.unless {
            case .context(let path): ["context": .string(path)]
            case .dependency(let key): ["dependency": .string(key.rawValue)]
            // A condition of a later FlowKit than the host was built with, which no guard it reads back has.
            @unknown default: ["unknown": .string(guarded.unless.description)]
            }
        return [
            "name": .string(guarded.name), "requests": .array(guarded.requests.map(JSONValue.string)),
            "unless": unless, "redirect": json(of: guarded.redirect),
        ]
    }

    /// The guard ``json(of:)-(DeclaredGuard)`` wrote, or `nil`.
    private static func declaredGuard(_ json: JSONValue) -> DeclaredGuard? {
        guard let name = json["name"]?.string, let requests = json["requests"]?.array?.mapAll(\.string),
            let redirect = json["redirect"].flatMap(request)
        else { return nil }
        let unless: GuardCondition
        if let path = json["unless"]?["context"]?.string {
            unless = .context(path)
        } else if let key = json["unless"]?["dependency"]?.string {
            unless = .dependency(DependencyKey(key))
        } else {
            return nil
        }
        return DeclaredGuard(name, requests: requests, unless: unless, redirect: redirect)
    }

    /// `{"pattern", "requests": [REQUEST...], "fromRoot"}`.
    private static func json(of link: DeclaredDeepLink) -> JSONValue {
        [
            "pattern": .string(link.pattern), "requests": .array(link.requests.map(json(of:))),
            "fromRoot": .bool(link.fromRoot),
        ]
    }

    /// The deep link ``json(of:)-(DeclaredDeepLink)`` wrote, or `nil`: also for one a flowhost wrote before deep
    /// links said whether they start from the root (FlowKit 1.8), so that its library is probed again.
    private static func declaredDeepLink(_ json: JSONValue) -> DeclaredDeepLink? {
        guard let pattern = json["pattern"]?.string, let requests = json["requests"]?.array?.mapAll(request),
            case .bool(let fromRoot)? = json["fromRoot"]
        else { return nil }
        return DeclaredDeepLink(pattern, opens: requests, fromRoot: fromRoot)
    }

    /// `{"request", "payload"}`.
    private static func json(of request: CoordinationRequest) -> JSONValue {
        ["request": .string(request.name.rawValue), "payload": request.payload]
    }

    /// The request ``json(of:)-(CoordinationRequest)`` wrote, or `nil`.
    private static func request(_ json: JSONValue) -> CoordinationRequest? {
        guard let name = json["request"]?.string, let payload = json["payload"] else { return nil }
        return CoordinationRequest(CoordinationRequestName(rawValue: name), payload: payload)
    }
}

extension Array {
    /// Each element transformed, or `nil` when any transforms to `nil`.
    fileprivate func mapAll<T>(_ transform: (Element) -> T?) -> [T]? {
        var result: [T] = []
        result.reserveCapacity(count)
        for element in self {
            guard let value = transform(element) else { return nil }
            result.append(value)
        }
        return result
    }
}
