import FlowComposition
import FlowManifest

/// What a manifest reload changed in the routes in force, each route named as `send` takes it (`greet`,
/// `auth.signIn from settings`): the routes it added, those whose request now goes elsewhere, and those it
/// removed. The reload line says them, so that whoever edited the manifest sees the edit they meant taken,
/// and nothing else.
package struct RouteChanges: Sendable, Hashable, CustomStringConvertible {
    /// Where a route sends its request, as the reload line and the trace name it.
    package enum Target: Sendable, Hashable, CustomStringConvertible {
        /// A manager, as `plugin.Manager`.
        case manager(String)
        /// The experiment of that name, which picks a variant per subject.
        case experiment(String)

        init(_ target: Manifest.Route.Target) {
            switch target {
            case .manager(let plugin, let manager): self = .manager("\(plugin).\(manager)")
            case .experiment(let experiment): self = .experiment(experiment)
            }
        }

        /// `plugin.Manager`, or `experiment NAME`.
        package var description: String {
            switch self {
            case .manager(let manager): manager
            case .experiment(let experiment): "experiment \(experiment)"
            }
        }
    }

    /// A route whose request goes to `target` now.
    package struct Retarget: Sendable, Hashable {
        package var route: String
        package var target: Target

        package init(route: String, target: Target) {
            self.route = route
            self.target = target
        }
    }

    /// The routes only the new table has, in its order.
    package var added: [String] = []
    /// The routes both have whose request the new table sends elsewhere, in its order.
    package var retargeted: [Retarget] = []
    /// The routes only the table before had, in its order.
    package var removed: [String] = []

    /// How many routes of each kind ``description`` names before it counts the rest.
    static let maxNamed = 5

    package init() {}

    /// The changes from the routes `before` to the routes `after`, a route known by its request and `from`
    /// (a table has one route per key), leaving out the routes `isNamed` says no.
    package init(
        from before: [Manifest.Route], to after: [Manifest.Route],
        naming isNamed: (PluginComposition.RouteKey) -> Bool = { _ in true }
    ) {
        func key(_ route: Manifest.Route) -> PluginComposition.RouteKey { .init(route.request, from: route.module) }
        let old = Dictionary(before.map { (key($0), $0.target) }, uniquingKeysWith: { first, _ in first })
        let new = Set(after.map(key))
        for route in after {
            let key = key(route)
            guard isNamed(key) else { continue }
            switch old[key] {
            case nil: added.append(key.shellName)
            case .some(let target) where target != route.target:
                retargeted.append(Retarget(route: key.shellName, target: Target(route.target)))
            default: break
            }
        }
        for route in before {
            let key = key(route)
            if !new.contains(key), isNamed(key) { removed.append(key.shellName) }
        }
    }

    /// Whether it names no change.
    package var isEmpty: Bool { added.isEmpty && retargeted.isEmpty && removed.isEmpty }

    /// `added routes: a, b; sent elsewhere: c (to p.M); removed route: d`, each list cut after ``maxNamed``
    /// routes with how many more there are (`(and 3 more)`); empty when it names no change.
    package var description: String {
        var parts: [String] = []
        if !added.isEmpty { parts.append(Self.listed(added, added.count == 1 ? "added route" : "added routes")) }
        if !retargeted.isEmpty {
            parts.append(Self.listed(retargeted.map { "\($0.route) (to \($0.target))" }, "sent elsewhere"))
        }
        if !removed.isEmpty {
            parts.append(Self.listed(removed, removed.count == 1 ? "removed route" : "removed routes"))
        }
        return parts.joined(separator: "; ")
    }

    /// `label: a, b, c`, the first ``maxNamed`` of `names`, then `(and N more)`.
    private static func listed(_ names: [String], _ label: String) -> String {
        let shown = names.prefix(maxNamed).joined(separator: ", ")
        return "\(label): " + (names.count > maxNamed ? "\(shown) (and \(names.count - maxNamed) more)" : shown)
    }
}
