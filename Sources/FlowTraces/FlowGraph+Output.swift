import FlowKit
import FlowManifest

/// A flow graph printed: Graphviz `dot`, Mermaid, or JSON. `docs/traces.md` shows each for the demo.
extension FlowGraph {
    /// The plugins whose boxes hold nodes, in the order their first node was added.
    private var plugins: [String] {
        var plugins: [String] = []
        for node in nodes {
            if let plugin = node.plugin, !plugins.contains(plugin) { plugins.append(plugin) }
        }
        return plugins
    }

    /// A node's label with the actions nobody triggered, one line each.
    private func lines(of node: Node) -> [String] {
        var lines = node.label.split(separator: "\n").map(String.init)
        if let plugin = node.declaredBy { lines.append("declared by \(plugin)") }
        if !node.conflict.isEmpty { lines.append("declared differently by \(node.conflict.joined(separator: ", "))") }
        if !node.untakenActions.isEmpty { lines.append("not taken: " + node.untakenActions.joined(separator: ", ")) }
        return lines
    }

    /// An edge's label: its own, how many times it was taken, or that it never was.
    private func label(of edge: Edge) -> String {
        let count: String? =
            switch edge.count {
            case nil: nil
            case 0?: "never taken"
            case let count?: "×\(count)"
            }
        return [edge.label, count].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    // MARK: - dot

    /// The graph in Graphviz's `dot` language: `dot -Tsvg` draws it. The start and the deep links are the
    /// first column, so the flow reads from the left; plugins are boxes (clusters); edges a trace took are
    /// drawn thick, those it never took dashed, grey and left out of the layout, so that they do not pull
    /// the picture apart.
    package var dot: String {
        var lines = [
            "digraph flow {", "  rankdir=LR;", "  compound=true;", "  newrank=true;",
            "  node [fontname=\"Helvetica\", fontsize=11];", "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        func declaration(_ node: Node) -> String {
            let shape =
                switch node.kind {
                case .entry: "shape=circle, style=filled, fillcolor=\"#333333\", fontcolor=white"
                case .deepLink: "shape=cds"
                case .request: "shape=ellipse"
                case .manager: "shape=box, style=rounded"
                case .module: "shape=note"
                case .child: "shape=box3d"
                case .experiment: "shape=diamond"
                case .guard: node.conflict.isEmpty ? "shape=octagon" : "shape=octagon, color=\"#c0392b\", penwidth=2"
                }
            return
                "\(Self.dotQuoted(node.id)) [label=\(Self.dotQuoted(self.lines(of: node).joined(separator: "\n"))), \(shape)];"
        }
        // First, so that the layout starts from them.
        let sources = nodes.filter { $0.kind == .entry || $0.kind == .deepLink }.map { Self.dotQuoted($0.id) }
        if !sources.isEmpty { lines.append("  { rank=source; \(sources.joined(separator: "; ")); }") }
        for (index, plugin) in plugins.enumerated() {
            lines.append("  subgraph cluster_\(index) {")
            lines.append("    label=\(Self.dotQuoted("plugin \(plugin)")); style=rounded; color=\"#999999\";")
            for node in nodes where node.plugin == plugin { lines.append("    " + declaration(node)) }
            lines.append("  }")
        }
        for node in nodes where node.plugin == nil { lines.append("  " + declaration(node)) }
        for edge in edges {
            var attributes = ["label=\(Self.dotQuoted(label(of: edge)))"]
            if edge.isNeverTaken {
                attributes.append("style=dashed, color=\"#bbbbbb\", fontcolor=\"#999999\", constraint=false")
            } else {
                if let count = edge.count, count > 0 { attributes.append("penwidth=2") }
                switch edge.kind {
                case .splits: attributes.append("color=\"#1f6fb2\"")
                case .redirects: attributes.append("color=\"#c0392b\"")
                case .watches: attributes.append("style=dotted, arrowhead=odot")
                default: break
                }
            }
            lines.append(
                "  \(Self.dotQuoted(edge.from)) -> \(Self.dotQuoted(edge.to)) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a dot string: quoted, with quotes and backslashes escaped and newlines as `\n`.
    ///
    /// It goes by Unicode scalars, not characters: a quote followed by a combining mark is one character,
    /// which is not `"`, and copied whole it would end the string early.
    static func dotQuoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    // MARK: - Mermaid

    /// The graph as a Mermaid flowchart, for a Markdown ```` ```mermaid ```` block: plugins are subgraphs;
    /// edges never taken are dotted.
    package var mermaid: String {
        var ids: [String: String] = [:]
        for (index, node) in nodes.enumerated() { ids[node.id] = "n\(index)" }
        var lines = ["flowchart LR"]
        func declaration(_ node: Node) -> String {
            let label = Self.mermaidQuoted(self.lines(of: node).joined(separator: "\n"))
            let id = ids[node.id]!
            return
                switch node.kind
            {
            case .entry: "\(id)((\(label)))"
            case .deepLink: "\(id)>\(label)]"
            case .request: "\(id)([\(label)])"
            case .manager: "\(id)[\(label)]"
            case .module: "\(id)[/\(label)/]"
            case .child: "\(id)[[\(label)]]"
            case .experiment: "\(id){\(label)}"
            case .guard: "\(id){{\(label)}}"
            }
        }
        for (index, plugin) in plugins.enumerated() {
            lines.append("  subgraph p\(index) [\(Self.mermaidQuoted("plugin \(plugin)"))]")
            for node in nodes where node.plugin == plugin { lines.append("    " + declaration(node)) }
            lines.append("  end")
        }
        for node in nodes where node.plugin == nil { lines.append("  " + declaration(node)) }
        for edge in edges {
            let arrow = edge.isNeverTaken ? "-.->" : edge.kind == .watches ? "-.-o" : "-->"
            let text = label(of: edge)
            let labelled = text.isEmpty ? arrow : "\(arrow)|\(Self.mermaidQuoted(text))|"
            lines.append("  \(ids[edge.from] ?? edge.from) \(labelled) \(ids[edge.to] ?? edge.to)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a quoted Mermaid label: a quote becomes `#quot;`, `<` and `>` `#lt;` and `#gt;`, and each
    /// newline `<br/>`. A name read from a trace may hold any of them: left as they are, a newline would end
    /// the label's line, and what follows be read as Mermaid statements (a `click` link on a node), and a tag
    /// as HTML. It goes by Unicode scalars, as ``dotQuoted(_:)`` does.
    static func mermaidQuoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "#quot;"
            case "<": quoted += "#lt;"
            case ">": quoted += "#gt;"
            case "\n": quoted += "<br/>"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    // MARK: - JSON

    /// The graph as one JSON document: `{"manifest", "traces", "nodes": [{"id", "kind", "label", "plugin",
    /// "declaredBy", "refuses", "conflict", "untakenActions"}], "edges": [{"from", "to", "kind", "label",
    /// "count", "static"}]}`; `count` is `null` without traces, 0 for an edge never taken. A guard plugins
    /// declare differently has `"refuses": true` and `"conflict": {"plugins": [...]}`; every other node
    /// `false` and `null`.
    package var json: JSONValue {
        let nodes = nodes.map { node -> JSONValue in
            [
                "id": .string(node.id), "kind": .string(node.kind.rawValue), "label": .string(node.label),
                "plugin": node.plugin.map(JSONValue.string) ?? .null,
                "declaredBy": node.declaredBy.map(JSONValue.string) ?? .null,
                "refuses": .bool(!node.conflict.isEmpty),
                "conflict": node.conflict.isEmpty ? .null : ["plugins": .array(node.conflict.map(JSONValue.string))],
                "untakenActions": .array(node.untakenActions.map(JSONValue.string)),
            ]
        }
        let edges = edges.map { edge -> JSONValue in
            [
                "from": .string(edge.from), "to": .string(edge.to), "kind": .string(edge.kind.rawValue),
                "label": .string(edge.label), "count": edge.count.map { .number(Double($0)) } ?? .null,
                "static": .bool(edge.isStatic),
            ]
        }
        return [
            "manifest": .string(manifest), "traces": .number(Double(traces)), "nodes": .array(nodes),
            "edges": .array(edges),
        ]
    }
}
