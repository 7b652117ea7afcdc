import FlowComposition
import FlowManifest

/// What a manifest reload changed in the routes, each route named as `send` takes it (`greet`,
/// `auth.signIn from settings`): the routes it added, those whose request now goes elsewhere (another
/// manager, or an experiment), and those it removed. The reload line says them, so that whoever edited the
/// manifest sees the edit they meant taken, and nothing else.
package struct RouteChanges: Sendable, Hashable, CustomStringConvertible {
    /// A route whose request goes elsewhere now: to `target`, a manager as `plugin.Manager` or
    /// `experiment NAME`.
    package struct Retarget: Sendable, Hashable {
        package var route: String
        package var target: String

        package init(route: String, target: String) {
            self.route = route
            self.target = target
        }
    }

    /// The routes only the new manifest has, in its order.
    package var added: [String] = []
    /// The routes both have whose request the new manifest sends elsewhere, in its order.
    package var retargeted: [Retarget] = []
    /// The routes only the manifest before had, in its order.
    package var removed: [String] = []

    /// How many routes of each kind ``description`` names before it counts the rest.
    static let maxNamed = 5

    package init() {}

    /// The changes from the routes `before` to the routes `after`, a route known by its request and `from`.
    package init(from before: [Manifest.Route], to after: [Manifest.Route]) {
        func key(_ route: Manifest.Route) -> PluginComposition.RouteKey { .init(route.request, from: route.module) }
        let old = Dictionary(before.map { (key($0), $0.target) }, uniquingKeysWith: { first, _ in first })
        let new = Set(after.map(key))
        var named = Set<PluginComposition.RouteKey>()
        for route in after where named.insert(key(route)).inserted {
            switch old[key(route)] {
            case nil: added.append(key(route).shellName)
            case let target? where target != route.target:
                retargeted.append(Retarget(route: key(route).shellName, target: route.target.name))
            default: break
            }
        }
        for route in before where !new.contains(key(route)) && named.insert(key(route)).inserted {
            removed.append(key(route).shellName)
        }
    }

    /// Whether the routes are the same, but for their order.
    package var isEmpty: Bool { added.isEmpty && retargeted.isEmpty && removed.isEmpty }

    /// `added a, b; c now goes to p.M; removed d`, each list cut after ``maxNamed`` names with how many more
    /// there are; empty when nothing changed.
    package var description: String {
        var parts: [String] = []
        if !added.isEmpty { parts.append("added " + Self.listed(added)) }
        if !retargeted.isEmpty { parts.append(Self.listed(retargeted.map { "\($0.route) now goes to \($0.target)" })) }
        if !removed.isEmpty { parts.append("removed " + Self.listed(removed)) }
        return parts.joined(separator: "; ")
    }

    /// `names` joined with commas, the first ``maxNamed`` of them, then `and N more`.
    private static func listed(_ names: [String]) -> String {
        let shown = names.prefix(maxNamed).joined(separator: ", ")
        return names.count > maxNamed ? "\(shown) and \(names.count - maxNamed) more" : shown
    }
}

extension Manifest.Route.Target {
    /// `plugin.Manager`, or `experiment NAME`.
    var name: String {
        switch self {
        case .manager(let plugin, let manager): "\(plugin).\(manager)"
        case .experiment(let experiment): "experiment \(experiment)"
        }
    }
}
