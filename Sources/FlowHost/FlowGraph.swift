import FlowKit

/// The flow of an app as a graph (`flowhost graph MANIFEST`): requests, the managers that handle them
/// grouped by plugin, the modules they present, child flows, experiment splits with their weights, guards
/// with their redirects, deep links and the start.
///
/// The manifest gives the static part: who handles what, who redirects what, how an experiment splits.
/// Traces (``add(_:)``) add what only running shows: the modules each manager presented, the child flows it
/// opened, the requests it made, and the transitions people took (a module's action to the request it
/// sent) with counts; once a trace is added, the manifest's edges nobody took are marked, and so are the
/// actions of presented modules that nobody triggered. Plugins that declare the requests their modules can
/// send (``Declaration``, ``add(declarations:)``) make the static graph show modules without traces.
///
/// It prints as Graphviz `dot` (``dot``), Mermaid (``mermaid``) or JSON (``json``).
public struct FlowGraph: Sendable, Hashable {
    /// What a node stands for.
    public enum NodeKind: String, Sendable, Hashable, CaseIterable {
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
    public enum EdgeKind: String, Sendable, Hashable, CaseIterable {
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
    public struct Node: Sendable, Hashable {
        public var id: String
        public var kind: NodeKind
        public var label: String
        public var plugin: String?
        /// For a module, with traces: its actions that nobody triggered.
        public var untakenActions: [String] = []
    }

    /// An edge, with what it means, its label and, with traces, how many times it was taken.
    public struct Edge: Sendable, Hashable {
        public var from: String
        public var to: String
        public var kind: EdgeKind
        public var label: String
        /// How many times the traces took it; `nil` without traces.
        public var count: Int?
        /// Whether it comes from the manifest or a declaration, rather than from traces only.
        public var isStatic: Bool

        /// Whether traces were added and none took this edge.
        public var isNeverTaken: Bool { count == 0 }
    }

    /// A request a plugin declares a module can send, and by which action: what makes modules show in the
    /// static graph. Where it comes from is the plugin's business; `flowhost graph` has no source for it
    /// yet (see ``add(declarations:)``).
    public struct Declaration: Sendable, Hashable {
        /// The plugin that declares it.
        public var plugin: String
        /// The module that sends the request.
        public var module: String
        /// The action that sends it, if one does.
        public var action: String?
        /// The request sent.
        public var request: String

        public init(plugin: String, module: String, action: String? = nil, request: String) {
            self.plugin = plugin
            self.module = module
            self.action = action
            self.request = request
        }
    }

    /// The manifest the graph is of.
    public var manifest: String
    /// The nodes, in the order they were added.
    public private(set) var nodes: [Node] = []
    /// The edges, in the order they were added.
    public private(set) var edges: [Edge] = []
    /// How many traces were added.
    public private(set) var traces = 0
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
    public init(manifest: Manifest) {
        self.manifest = manifest.path
        if !manifest.start.isEmpty {
            let start = node("entry:start", .entry, "start")
            for request in manifest.start { edge(start, requestNode(request.name.rawValue), .starts, "") }
        }
        for route in manifest.deepLinks.routes {
            let link = node("deeplink:\(route.pattern)", .deepLink, route.pattern.description)
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
        for guardRule in manifest.guards {
            let node = node("guard:\(guardRule.name)", .guard, "guard \(guardRule.name)\nunless \(guardRule.unless)")
            for request in requests
            where guardRule.requests.contains(where: { $0.matches(CoordinationRequestName(request)) }) {
                edge(requestNode(request), node, .watches, "")
            }
            edge(node, requestNode(guardRule.redirect.name.rawValue), .redirects, "")
        }
    }

    /// Adds what plugins declare their modules send: an edge from each module to its request.
    ///
    /// This is the seam for plugins that describe their modules (a `PluginDescription` that lists the
    /// requests each module can send); the host has no such description yet, so `flowhost graph` passes
    /// none.
    public mutating func add(declarations: [Declaration]) {
        for declaration in declarations {
            let module = moduleNode(declaration.module, plugin: declaration.plugin)
            edge(module, requestNode(declaration.request), .sends, declaration.action ?? "")
        }
    }

    // MARK: - Building

    /// The node `id`, added with `kind` and `label` if it is new.
    @discardableResult
    mutating func node(_ id: String, _ kind: NodeKind, _ label: String, plugin: String? = nil) -> String {
        if let index = nodeIndex[id] {
            if nodes[index].plugin == nil, let plugin { nodes[index].plugin = plugin }
            return id
        }
        nodeIndex[id] = nodes.count
        nodes.append(Node(id: id, kind: kind, label: label, plugin: plugin))
        return id
    }

    mutating func requestNode(_ name: String) -> String { node("request:\(name)", .request, name) }

    /// A manager reported as `plugin.Manager` (or, inside a child flow, `Manager`), in its plugin's box.
    mutating func managerNode(_ name: String, plugin: String?) -> String {
        node("manager:\(name)", .manager, name, plugin: plugin)
    }

    mutating func moduleNode(_ name: String, plugin: String?) -> String {
        node("module:\(name)", .module, name, plugin: plugin)
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

    /// Counts a passage along the first edge from `from` to `to` of `kind`, whatever its label; adds one
    /// labelled `label` when there is none.
    mutating func take(_ from: String, _ to: String, _ kind: EdgeKind, _ label: String = "") {
        if let index = edges.firstIndex(where: { $0.from == from && $0.to == to && $0.kind == kind }) {
            edges[index].count = (edges[index].count ?? 0) + 1
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
