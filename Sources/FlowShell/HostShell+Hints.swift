import FlowComposition
import FlowHost
import FlowKit
import FlowManifest
import PluginLoading

/// What the shell suggests when a name looks mistyped: a request no route handles, an action the
/// visible module lacks, a sender module that is nowhere to be seen.
extension HostShell {
    /// Why no route took `request`: it is routed only from other modules, or only inside a child flow of a
    /// loaded plugin; or, when the loaded plugins declare `request` (a route or a module's send) and not the
    /// nearest routed request, that the manifest's route looks mistyped; or the route a loaded plugin declares
    /// for it, sent from `sender` (`nil`: not known), that the manifest lacks or set aside; or "did you mean" the
    /// nearest routed request; `nil` when there is nothing to say.
    func requestHint(_ request: CoordinationRequestName, from sender: Coordinated? = nil) -> String? {
        let routes = host.manifest.routes
        let senders = routes.filter { $0.request == request }.compactMap(\.module)
        if !senders.isEmpty {
            return "\(request) is routed only from \(senders.map { "'\($0)'" }.joined(separator: ", "))"
        }
        if let (plugin, flow) = childFlowRoute(of: request) {
            return
                "plugin '\(plugin)' routes \(request) only inside its child flow '\(flow)', whose modules' actions send it"
        }
        let nearest = Suggestion.closest(to: request.rawValue, among: routes.map(\.request.rawValue))
        let declared = host.declaredRequests.all
        if let nearest, declared.contains(request.rawValue) && !declared.contains(nearest) {
            return "the manifest routes '\(nearest)': a typo there?"
        }
        if let route = unlistedRoute(of: request, from: sender) { return route }
        return nearest.map { "did you mean '\($0)'?" }
    }

    /// The loaded plugin, and its child flow, whose own mapping routes `request`
    /// (`DeclaredRoute(_:manager:inChildFlow:)`): a plugin not loaded yet is not read, so as not to load it for a
    /// hint.
    private func childFlowRoute(of request: CoordinationRequestName) -> (plugin: String, flow: String)? {
        for plugin in host.registry.pluginNames {
            guard case .loaded(let loaded)? = host.registry.status(of: plugin),
                let route = loaded.description.routes.first(where: { $0.request == request && $0.childFlow != nil }),
                let flow = route.childFlow
            else { continue }
            return (plugin, flow.rawValue)
        }
        return nil
    }

    /// That a loaded plugin in use declares a route for `request` (`DeclaredRoute`) the manifest does not
    /// have, as a manifest that lists the plugin leaves its declarations out: the route to add, only to a manager
    /// the plugin exports, and one that would take the request from `sender`: from it, else from anywhere (from
    /// the app first when `sender` is not known). A plugin not loaded yet is not read, as for
    /// ``childFlowRoute(of:)``. A manifest that discovers its plugins has their declared routes already, but
    /// those it set aside and those of a plugin it excludes: which, and why (`excluded by exclude.routes[0]`).
    private func unlistedRoute(of request: CoordinationRequestName, from sender: Coordinated?) -> String? {
        if let composition = host.composition {
            let aside = composition.setAside.first {
                $0.key.request == request && ($0.key.module == nil || sender == nil || $0.key.module == sender)
            }
            if let aside { return aside.note }
            // One of a plugin the manifest excludes whole.
            for plugin in composition.plugins {
                guard case .excluded(let place) = plugin.state,
                    plugin.probe?.routes.contains(where: { $0.request == request && $0.childFlow == nil }) == true
                else { continue }
                return "plugin '\(plugin.name)' declares a route for \(request), but is excluded by \(place)"
            }
            return nil
        }
        for plugin in host.registry.pluginNames where host.registry.isInUse(plugin) {
            guard case .loaded(let loaded)? = host.registry.status(of: plugin) else { continue }
            let exported = Set(loaded.description.managers.map(\.name))
            let routes = loaded.description.routes.filter {
                $0.request == request && $0.childFlow == nil && exported.contains($0.manager)
            }
            let taking =
                if let sender { routes.first { $0.from == sender } ?? routes.first { $0.from == nil } } else {
                    routes.first { $0.from == nil } ?? routes.first
                }
            guard let route = taking else { continue }
            let from = route.from.map { #", "from": "\#($0.rawValue)""# } ?? ""
            return
                #"plugin '\#(plugin)' declares a route for \#(request) that the manifest does not have: add {"request": "\#(request)"\#(from), "plugin": "\#(plugin)", "manager": "\#(route.manager)"} to its routes"#
        }
        return nil
    }

    /// "did you mean" the nearest action of `module`, when it has no action `action`.
    func actionHint(_ action: String, on module: FlowModule) -> String? {
        guard module.action(named: action) == nil else { return nil }
        return Suggestion.closest(to: action, among: module.actions.map(\.name)).map { "did you mean '\($0)'?" }
    }

    /// That `module`, lacking `action`, was made by an older generation of its plugin than the one serving:
    /// its actions are that generation's, and sending its request again makes it anew.
    func olderScreenHint(_ action: String, on module: FlowModule) -> String? {
        guard module.action(named: action) == nil, let made = moduleMakers.modules[module.name],
            let serving = host.registry.servingGeneration(of: made.plugin), serving != made.generation
        else { return nil }
        return
            "this screen was made by generation \(made.generation) of '\(made.plugin)' (now \(serving)): send its request again to get the new one"
    }

    /// The senders that need no warning: every module on screen, every module a route's `from` names, and
    /// FlowKit's own senders (`app`, `deepLink`, `service`).
    var knownModules: Set<String> {
        let presented = host.coordinator.router.modules.map(\.name.rawValue)
        let routed = host.manifest.routes.compactMap(\.module?.rawValue)
        let builtIn = [Coordinated.app, .deepLink, .service].map(\.rawValue)
        return Set(presented + routed + builtIn)
    }

    /// Why sending as `module` is suspect, with the nearest known module; `nil` when it is a known one.
    ///
    /// Sending as any module is legal (a module not yet shown may send), so this is a warning, not an error.
    func unknownModuleWarning(_ module: Coordinated) -> String? {
        let known = knownModules
        guard !known.contains(module.rawValue) else { return nil }
        let hint = Suggestion.closest(to: module.rawValue, among: known).map { "; did you mean '\($0)'?" } ?? ""
        return "module '\(module)' is not on screen and no route names it\(hint)"
    }

    /// Why a deep link's step failed to decode its payload, when a member the plugin wanted as a number was
    /// filled with the text of an untyped capture: `; the link's {n} captures text: write {n:int} in its
    /// pattern 'greet://count/{n}' for a number`. Empty when that is not it.
    ///
    /// - Parameters:
    ///   - route: The deep link that matched.
    ///   - step: The index of the step that failed.
    ///   - cause: Why it failed (`greeting.count got an unexpected payload {"n":"7"}: n: expected an integer
    ///     (Int) but found a string`).
    func untypedCaptureHint(_ route: DeepLinkMapping.Route, step: Int, cause: String) -> String {
        guard route.steps.indices.contains(step), cause.hasSuffix("but found a string"),
            case .object(let members) = route.steps[step].payload
        else { return "" }
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            guard case .string(let text) = value, text.hasPrefix("{"), text.hasSuffix("}"),
                cause.contains(": \(key): expected an integer") || cause.contains(": \(key): expected a number")
            else { continue }
            let name = String(text.dropFirst().dropLast())
            let pattern = route.pattern.description
            guard pattern.contains("{\(name)}") || pattern.contains("{\(name):string}") else { continue }
            return "; the link's {\(name)} captures text: write {\(name):int} in its pattern '\(pattern)' for a number"
        }
        return ""
    }
}
