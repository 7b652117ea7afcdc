import FlowKit
import FlowManifest
import PluginLoading

/// Requirements: which plugins are refused for want of another, and the order the rest load in.
extension PluginComposition {
    /// Checks every active plugin's `requires`, refuses those that cannot have what they need (and those
    /// that require a refused one), and orders the rest requirements first; returns the refusals by name.
    mutating func resolveRequirements() -> [String: PluginLoadError] {
        var refused: [String: PluginLoadError] = [:]
        for plugin in plugins {
            if case .refused(let error) = plugin.state { refused[plugin.name] = error }
        }
        let present = Dictionary(
            plugins.filter(\.isActive).compactMap { plugin in plugin.probe.map { (plugin.name, ($0, plugin.library)) }
            },
            uniquingKeysWith: { first, _ in first })
        let removed = Set(plugins.filter { if case .removed = $0.state { true } else { false } }.map(\.name))
        var edges: [String: [String]] = [:]
        var ranges: [String: [String: String]] = [:]

        for name in present.keys.sorted() {
            guard let (probe, library) = present[name] else { continue }
            for requirement in PluginRequirement.all(of: name, library: library, requires: probe.requires) {
                let other = requirement.required
                ranges[name, default: [:]][other] = requirement.range
                let found: PluginRequirement.Found
                if let (required, requiredLibrary) = present[other] {
                    found = .present(version: required.version, library: requiredLibrary)
                } else if let error = refused[other] {
                    found = .refused(error)
                } else {
                    found = .missing(why: removed.contains(other) ? "which was removed" : "which is not there")
                }
                if let error = requirement.refusal(found) {
                    problems.append(error)
                    if refused[name] == nil { refused[name] = error }
                } else {
                    edges[name, default: []].append(other)
                }
            }
        }

        for cycle in Self.cycles(edges) {
            let error = PluginLoadError(
                file: present[cycle[0]]?.1 ?? declared.path, kind: .requirementCycle,
                message: Self.cycleMessage(cycle))
            problems.append(error)
            for name in cycle where refused[name] == nil { refused[name] = error }
        }

        // A plugin that requires a refused one is refused too, until nothing changes.
        var changed = true
        while changed {
            changed = false
            for name in present.keys.sorted() where refused[name] == nil {
                guard let other = edges[name]?.first(where: { refused[$0] != nil }), let library = present[name]?.1
                else { continue }
                let error = PluginLoadError(
                    file: library, kind: .unmetRequirement,
                    message:
                        "plugin '\(name)' requires plugin '\(other)' \(ranges[name]?[other] ?? "*"), which is refused; it is not loaded either"
                )
                problems.append(error)
                refused[name] = error
                changed = true
            }
        }

        for index in plugins.indices where plugins[index].isActive {
            if let error = refused[plugins[index].name] { plugins[index].state = .refused(error) }
        }
        let active = Set(present.keys).subtracting(refused.keys)
        loadOrder = Self.order(active, edges: edges)
        requirements = edges.filter { active.contains($0.key) }
        return refused
    }

    /// The refusal of the plugins of `cycle`, each of which requires the next, the last the first: started
    /// from its smallest name, so that the cycle reads the same wherever it was found.
    package static func cycleMessage(_ cycle: [String]) -> String {
        guard let smallest = cycle.indices.min(by: { cycle[$0] < cycle[$1] }) else { return "" }
        let cycle = Array(cycle[smallest...] + cycle[..<smallest])
        if cycle.count == 1 { return "plugin '\(cycle[0])' requires itself; it is not loaded" }
        let names = cycle.map { "'\($0)'" }
        let path = (cycle + [cycle[0]]).joined(separator: " -> ")
        let together =
            cycle.count == 2
            ? "\(names[0]) and \(names[1]) require each other (\(path)); neither is loaded"
            : "\(names.dropLast().joined(separator: ", ")) and \(names[names.count - 1]) require each other in a cycle (\(path)); none of them is loaded"
        return "plugins " + together
    }

    /// `names` with each after the names it has edges to, ties broken by name.
    static func order(_ names: Set<String>, edges: [String: [String]]) -> [String] {
        var placed: [String] = []
        var done = Set<String>()
        var waiting = names.sorted()
        while !waiting.isEmpty {
            guard
                let next = waiting.firstIndex(where: { name in
                    (edges[name] ?? []).allSatisfy { done.contains($0) || !names.contains($0) }
                })
            else {
                placed += waiting  // a cycle, refused already: keep the rest by name
                break
            }
            let name = waiting.remove(at: next)
            placed.append(name)
            done.insert(name)
        }
        return placed
    }

    /// The cycles of the graph `edges`: each strongly connected component with more than one node, or with
    /// a node that points to itself, as a path starting from its smallest name.
    static func cycles(_ edges: [String: [String]]) -> [[String]] {
        // Tarjan's algorithm.
        var index = 0
        var indices: [String: Int] = [:]
        var lowlinks: [String: Int] = [:]
        var stack: [String] = []
        var onStack = Set<String>()
        var components: [[String]] = []
        func connect(_ node: String) {
            indices[node] = index
            lowlinks[node] = index
            index += 1
            stack.append(node)
            onStack.insert(node)
            for next in edges[node] ?? [] {
                if indices[next] == nil {
                    connect(next)
                    lowlinks[node] = min(lowlinks[node]!, lowlinks[next]!)
                } else if onStack.contains(next) {
                    lowlinks[node] = min(lowlinks[node]!, indices[next]!)
                }
            }
            if lowlinks[node] == indices[node] {
                var component: [String] = []
                while let top = stack.popLast() {
                    onStack.remove(top)
                    component.append(top)
                    if top == node { break }
                }
                components.append(component)
            }
        }
        for node in edges.keys.sorted() where indices[node] == nil { connect(node) }
        return components.compactMap { component -> [String]? in
            let members = Set(component)
            guard let start = component.min() else { return nil }
            if component.count == 1 { return edges[start]?.contains(start) == true ? [start] : nil }
            // Walk from the smallest name along edges inside the component back to it.
            var path = [start]
            var visited: Set<String> = [start]
            func walk(_ node: String) -> Bool {
                for next in (edges[node] ?? []).sorted() where members.contains(next) {
                    if next == start { return true }
                    guard visited.insert(next).inserted else { continue }
                    path.append(next)
                    if walk(next) { return true }
                    path.removeLast()
                }
                return false
            }
            _ = walk(start)
            return path
        }.sorted { $0[0] < $1[0] }
    }
}
