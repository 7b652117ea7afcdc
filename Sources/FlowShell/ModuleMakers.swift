import FlowKit

/// Which plugin, and which generation of it, presented each module: what tells a screen made before a
/// reload, whose actions are the old generation's, from one the generation now serving made.
///
/// Read from the flow events as they come: a module's maker is the plugin of the manager handling the
/// request within which it was presented (a child flow's manager, named by the plugin's own mapping, counts
/// as the plugin of the request that opened it, or, sent from a page of the flow, of the plugin that presented
/// that page). A module presented outside any plugin's request is forgotten. A child flow counts as made by
/// the plugin that opened it, in a request of its or by an action of a module it presented, so that the
/// requests the flow sends as itself (its first page) are that plugin's too.
struct ModuleMakers {
    private var nesting = RequestNesting()
    /// The plugin of each request under way, innermost last; `nil` where none is known.
    private var plugins: [String?] = []
    /// Each module's maker, by name: the last presentation of that name.
    private(set) var modules: [Coordinated: (plugin: String, generation: Int)] = [:]
    /// Each child flow's opener, by the flow's name, apart from the modules: a flow may share a module's name.
    private var flows: [Coordinated: (plugin: String, generation: Int)] = [:]
    /// The module whose action the shell is performing (`act`), which opens a child flow outside any request.
    var acting: Coordinated?
    /// The plugin that presented ``acting``.
    var actingPlugin: String? { acting.flatMap { modules[$0]?.plugin } }

    /// The plugin that made `sender`, which sends a request: a module, or a child flow sending as itself.
    func plugin(of sender: Coordinated) -> String? {
        (modules[sender] ?? flows[sender])?.plugin
    }

    /// Reads the next flow event. `plugin` names the plugin of a manager (`greeting.Greeting`), `nil` for
    /// one of no plugin; `generation` is the generation of a plugin that serves.
    mutating func notice(
        _ flow: FlowEvent, plugin: (String) -> String?, generation: (String) -> Int?
    ) {
        switch flow.kind {
        case .handling, .redirecting, .handled, .failed, .held, .presented, .childOpened: break
        default: return
        }
        let place = nesting.enter(flow)
        switch flow {
        // A child flow's manager (FlowKit names it without its plugin) is of the plugin whose request it
        // handles within, else of the plugin that presented the module sending it (a page's next page).
        case .handling(_, let module, let manager, _):
            plugins.append(plugin(manager) ?? plugins.last ?? self.plugin(of: module))
        case .redirecting: plugins.append(plugins.last ?? nil)
        case .presented(let module, _):
            if let maker = plugins.last ?? nil, let serving = generation(maker) {
                modules[module] = (maker, serving)
            } else {
                modules[module] = nil
            }
        case .childOpened(let flow, _):
            let flow = Coordinated(rawValue: flow)
            if let maker = plugins.last ?? nil, let serving = generation(maker) {
                flows[flow] = (maker, serving)
            } else {
                flows[flow] = plugins.isEmpty ? acting.flatMap { modules[$0] } : nil
            }
        default: if place.closes { plugins.removeLast() }
        }
    }
}
