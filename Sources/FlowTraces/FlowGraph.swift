import FlowComposition
import FlowKit
import FlowManifest
import PluginLoading

/// The flow of an app as a graph (`flowhost graph MANIFEST`): requests, the managers that handle them
/// grouped by plugin, the modules they present, child flows, experiment splits with their weights, guards
/// with their redirects, deep links and the start.
///
/// The manifest gives the static part: who handles what, who redirects what, how an experiment splits.
/// Traces (``add(_:)``) add what only running shows: the modules each manager presented, the child flows it
/// opened, the requests it made, and the transitions people took (a module's action to the request it
/// sent) with counts; once a trace is added, the manifest's edges nobody took are marked, and so are the
/// actions of presented modules that nobody triggered. Plugins that declare the modules their managers
/// present and the requests those can send (``FlowKit/DeclaredModule``, added with ``add(declarations:)``)
/// make the static graph show modules without traces.
///
/// It prints as Graphviz `dot` (``dot``), Mermaid (``mermaid``) or JSON (``json``).
package struct FlowGraph: Sendable, Hashable {
    /// What a node stands for.
    package enum NodeKind: String, Sendable, Hashable, CaseIterable {
        /// Where flows begin: the manifest's start (`entry:start`), or a deep link pattern.
        case entry
        case deepLink
        case request
        case manager
        case module
        /// A child coordinator a manager opened: a sub-flow.
        case child
        /// An experiment's split between its variants' managers.
        case experiment
        /// A guard, between the requests it watches and its redirect.
        case `guard`
    }

    /// What an edge says.
    package enum EdgeKind: String, Sendable, Hashable, CaseIterable {
        /// The start, or a deep link, sends a request.
        case starts
        /// A route: a request goes to a manager (or to an experiment).
        case routes
        /// An experiment sends a share of its subjects to a variant's manager.
        case splits
        /// A manager presents a module.
        case presents
        /// A manager opens a child flow.
        case opens
        /// A module (an action on it) sends a request.
        case sends
        /// A manager, while handling a request, makes another.
        case asks
        /// A guard watches a request.
        case watches
        /// A guard redirects to a request.
        case redirects
    }

    /// A node: its id (`request:catalog.create`, `manager:catalog.CreateItem`), what it is, its label, and
    /// the plugin whose box it is drawn in.
    package struct Node: Sendable, Hashable {
        package var id: String
        package var kind: NodeKind
        package var label: String
        package var plugin: String?
        /// For a guard or a deep link a discovered plugin declared: that plugin.
        package var declaredBy: String?
        /// For a guard plugins declare differently (``FlowComposition/ConflictingGuard``): those plugins. It
        /// refuses the requests it watches, and redirects nowhere. Empty otherwise.
        package var conflict: [String] = []
        /// For a module, with traces: its actions that nobody triggered.
        package var untakenActions: [String] = []
    }

    /// An edge, with what it means, its label and, with traces, how many times it was taken.
    package struct Edge: Sendable, Hashable {
        package var from: String
        package var to: String
        package var kind: EdgeKind
        package var label: String
        /// How many times the traces took it; `nil` without traces.
        package var count: Int?
        /// Whether it comes from the manifest or a declaration, rather than from traces only.
        package var isStatic: Bool

        /// Whether traces were added and none took this edge.
        package var isNeverTaken: Bool { count == 0 }
    }

    /// A module a plugin declares (``FlowKit/PluginDescription/modules``): what makes modules show in the
    /// static graph, with the managers that present them and the requests they can send.
    package struct Declaration: Sendable, Hashable {
        /// The plugin that declares it, by the name the manifest gives it (the `plugin` of the manager
        /// nodes).
        package var plugin: String
        /// The module, its presenting managers and what it sends.
        package var module: DeclaredModule

        package init(plugin: String, module: DeclaredModule) {
            self.plugin = plugin
            self.module = module
        }
    }

    /// The manifest the graph is of.
    package var manifest: String
    /// The nodes, in the order they were added.
    package private(set) var nodes: [Node] = []
    /// The edges, in the order they were added.
    package private(set) var edges: [Edge] = []
    /// How many traces were added.
    package private(set) var traces = 0
    /// The actions each presented module had, and those inputs triggered, by module, over the traces.
    var moduleActions: [String: [String]] = [:]
    var takenActions: [String: Set<String>] = [:]
    private var nodeIndex: [String: Int] = [:]
    private var edgeIndex: [EdgeKey: Int] = [:]

    private struct EdgeKey: Hashable {
        var from: String
        var to: String
        var kind: EdgeKind
        var label: String
    }

    /// The static graph of `manifest`: its start requests, deep links, routes, experiments and guards.
    ///
    /// - Parameter composition: For a manifest composed with the plugins it discovers, their composition,
    ///   whose ``PluginComposition/manifest`` is `manifest`: it says which plugin declared each guard and
    ///   deep link, and adds the guards plugins declare differently, which refuse what they watch.
    package init(manifest: Manifest, composition: PluginComposition? = nil) {
        self.manifest = manifest.path
        if !manifest.start.isEmpty {
            let start = node("entry:start", .entry, "start")
            for request in manifest.start { edge(start, requestNode(request.name.rawValue), .starts, "") }
        }
        for route in manifest.deepLinks.routes {
            let link = node("deeplink:\(route.pattern)", .deepLink, route.pattern.description)
            declare(link, by: composition?.deepLinkSources[route.pattern.description])
            for (index, step) in route.steps.enumerated() {
                edge(link, requestNode(step.name.rawValue), .starts, route.steps.count > 1 ? "step \(index + 1)" : "")
            }
        }
        for route in manifest.routes {
            let request = requestNode(route.request.rawValue)
            let label = route.module.map { "from \($0)" } ?? ""
            switch route.target {
            case .manager(let plugin, let manager):
                edge(request, managerNode("\(plugin).\(manager)", plugin: plugin), .routes, label)
            case .experiment(let name):
                let split = node("experiment:\(name)", .experiment, "experiment \(name)")
                edge(request, split, .routes, label)
                let experiment = manifest.experiments[name]
                let total = experiment?.variants.reduce(0) { $0 + $1.weight } ?? 0
                for variant in experiment?.variants ?? [] {
                    let share = total > 0 ? variant.weight * 100 / total : 0
                    let manager = managerNode("\(variant.plugin).\(variant.manager)", plugin: variant.plugin)
                    edge(split, manager, .splits, "\(variant.name) \(share)%")
                }
            }
        }
        let requests = nodes.filter { $0.kind == .request }.map(\.label)
        // Before the guards in force, as the host consults them: each refuses the requests it watches.
        for conflicting in composition?.conflictingGuards ?? [] {
            let node = node("guard:\(conflicting.name)", .guard, "guard \(conflicting.name)\nrefuses: in conflict")
            nodes[nodeIndex[node]!].conflict = conflicting.plugins
            for request in requests
            where conflicting.requests.contains(where: { $0.matches(CoordinationRequestName(request)) }) {
                edge(requestNode(request), node, .watches, "")
            }
        }
        for guardRule in manifest.guards {
            let node = node("guard:\(guardRule.name)", .guard, "guard \(guardRule.name)\nunless \(guardRule.unless)")
            declare(node, by: composition?.guardSources[guardRule.name])
            for request in requests
            where guardRule.requests.contains(where: { $0.matches(CoordinationRequestName(request)) }) {
                edge(requestNode(request), node, .watches, "")
            }
            edge(node, requestNode(guardRule.redirect.name.rawValue), .redirects, "")
        }
    }

    /// Adds the modules plugins declare, in their plugin's box: a `presents` edge (`opens` for a child flow)
    /// from each declaring manager (`plugin.Manager`, or a child flow's `Manager` as
    /// ``add(childFlowRoutes:plugin:)`` drew it) to its module, a `sends` edge from the module to each request it can send, labelled with the action, and
    /// an `opens` edge to each child flow an action opens. A module named after a child flow the graph has
    /// is that flow's node: what it sends follows the flow. They are static edges: once a trace is added
    /// (before or after), those nobody took are never-taken.
    ///
    /// Only managers the graph has (the manifest or a declared child flow routes to them) present: a module
    /// whose managers are all unrouted is left out, since the app never shows it. A module declared without
    /// managers (a child flow's, or a name a plugin sends as) is always drawn.
    package mutating func add(declarations: [Declaration]) {
        for declaration in declarations {
            let plugin = declaration.plugin
            let managers = declaration.module.managers.compactMap { name in
                ["manager:\(plugin).\(name)", "manager:\(name)"].first { nodeIndex[$0] != nil }
            }
            guard !managers.isEmpty || declaration.module.managers.isEmpty else { continue }
            let name = declaration.module.module.rawValue
            let isFlow = nodeIndex["child:\(name)"] != nil
            let module = isFlow ? "child:\(name)" : moduleNode(name, plugin: plugin)
            for manager in managers { staticEdge(manager, module, isFlow ? .opens : .presents, "") }
            for send in declaration.module.sends {
                if let flow = send.opens {
                    staticEdge(module, childNode(flow.rawValue, plugin: plugin), .opens, send.action ?? "")
                } else {
                    staticEdge(module, requestNode(send.request.rawValue), .sends, send.action ?? "")
                }
            }
        }
    }

    /// Adds the routes a plugin declares its child flows' own mappings hold: each flow's node, and a `routes`
    /// edge from the request to the manager, named as traces name a child flow's managers (`Manager`, with
    /// no plugin) in the plugin's box, and labelled as the shell names them (`plugin.Manager`).
    package mutating func add(childFlowRoutes routes: [DeclaredRoute], plugin: String) {
        for route in routes {
            if let flow = route.childFlow { childNode(flow.rawValue, plugin: plugin) }
            staticEdge(requestNode(route.request.rawValue), managerNode(route.manager, plugin: plugin), .routes, "")
        }
    }

    /// Adds the modules, and the child flows' routes, each plugin declares, by the name the manifest gives
    /// it (see ``add(declarations:)``).
    package mutating func add(plugins: [String: ProbedPlugin]) {
        for name in plugins.keys.sorted() {
            let plugin = plugins[name]!
            add(childFlowRoutes: plugin.childFlowRoutes, plugin: name)
            for flow in plugin.modules.flatMap(\.sends).compactMap(\.opens) { childNode(flow.rawValue, plugin: name) }
            add(declarations: plugin.modules.map { Declaration(plugin: name, module: $0) })
        }
    }

    // MARK: - Building

    /// The node `id`, added with `kind` and `label` if it is new.
    @discardableResult
    mutating func node(_ id: String, _ kind: NodeKind, _ label: String, plugin: String? = nil) -> String {
        if let index = nodeIndex[id] {
            if nodes[index].plugin == nil, let plugin {
                nodes[index].plugin = plugin
                if kind == .manager { nodes[index].label = Self.managerLabel(label, plugin: plugin) }
            }
            return id
        }
        nodeIndex[id] = nodes.count
        let label = kind == .manager ? Self.managerLabel(label, plugin: plugin) : label
        nodes.append(Node(id: id, kind: kind, label: label, plugin: plugin))
        return id
    }

    /// A manager's label as the shell names it: `plugin.Manager`, a child flow's `Manager` with its plugin
    /// once the graph knows it.
    private static func managerLabel(_ name: String, plugin: String?) -> String {
        guard let plugin, !name.contains(".") else { return name }
        return "\(plugin).\(name)"
    }

    /// Records that the plugin `source` names declared the node `id`.
    private mutating func declare(_ id: String, by source: PluginComposition.Source?) {
        guard case .plugin(let plugin)? = source, let index = nodeIndex[id] else { return }
        nodes[index].declaredBy = plugin
    }

    mutating func requestNode(_ name: String) -> String { node("request:\(name)", .request, name) }

    /// A manager reported as `plugin.Manager` (or, inside a child flow, `Manager`), in its plugin's box,
    /// labelled `plugin.Manager` either way.
    mutating func managerNode(_ name: String, plugin: String?) -> String {
        node("manager:\(name)", .manager, name, plugin: plugin)
    }

    mutating func moduleNode(_ name: String, plugin: String?) -> String {
        node("module:\(name)", .module, name, plugin: plugin)
    }

    /// A child flow, by its coordinator's name, as traces draw it.
    @discardableResult
    mutating func childNode(_ name: String, plugin: String?) -> String {
        node("child:\(name)", .child, "child flow \(name)", plugin: plugin)
    }

    /// The node of the child flow `name`, if the graph has one (declared, or opened in a trace read so far).
    func existingChildNode(_ name: String) -> String? {
        nodeIndex["child:\(name)"] != nil ? "child:\(name)" : nil
    }

    /// Adds the edge, or finds it; with `taken`, counts one more passage.
    mutating func edge(_ from: String, _ to: String, _ kind: EdgeKind, _ label: String, taken: Bool = false) {
        let key = EdgeKey(from: from, to: to, kind: kind, label: label)
        if let index = edgeIndex[key] {
            if taken { edges[index].count = (edges[index].count ?? 0) + 1 }
            return
        }
        edgeIndex[key] = edges.count
        edges.append(
            Edge(from: from, to: to, kind: kind, label: label, count: taken ? 1 : nil, isStatic: traces == 0 && !taken))
    }

    /// Adds an edge from the manifest or a declaration: static, and never taken if traces were added
    /// already.
    private mutating func staticEdge(_ from: String, _ to: String, _ kind: EdgeKind, _ label: String) {
        let key = EdgeKey(from: from, to: to, kind: kind, label: label)
        guard edgeIndex[key] == nil else { return }
        edge(from, to, kind, label)
        edges[edges.count - 1].isStatic = true
        if traces > 0 { edges[edges.count - 1].count = 0 }
    }

    /// Counts a passage along the first edge from `from` to `to` of `kind`, whatever its label; adds one
    /// labelled `label` when there is none. A declared edge without a label takes the passage's (the style
    /// a manager presented its module in).
    mutating func take(_ from: String, _ to: String, _ kind: EdgeKind, _ label: String = "") {
        if let index = edges.firstIndex(where: { $0.from == from && $0.to == to && $0.kind == kind }) {
            edges[index].count = (edges[index].count ?? 0) + 1
            if edges[index].label.isEmpty && !label.isEmpty {
                edgeIndex[EdgeKey(from: from, to: to, kind: kind, label: "")] = nil
                edges[index].label = label
                edgeIndex[EdgeKey(from: from, to: to, kind: kind, label: label)] = index
            }
        } else {
            edge(from, to, kind, label, taken: true)
        }
    }

    /// Marks the start of a trace: from now on, edges nobody took count 0.
    mutating func beginTrace() {
        traces += 1
        for index in edges.indices where edges[index].count == nil { edges[index].count = 0 }
    }

    mutating func setUntakenActions(_ actions: [String], of module: String) {
        guard let index = nodeIndex[module] else { return }
        nodes[index].untakenActions = actions
    }
}
