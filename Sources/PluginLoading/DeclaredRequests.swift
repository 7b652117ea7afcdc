import FlowKit

/// The requests a plugin's description names: those its routes handle (a child flow's included) and those its
/// modules send. What `flowhost validate` and the shell compare a manifest's routes with, to tell a typo in
/// the manifest from one in an action.
package struct DeclaredRequests: Sendable, Hashable {
    /// The requests its declared routes handle.
    package var routed: Set<String> = []
    /// The requests its declared modules send (a child flow opened is no request).
    package var sent: Set<String> = []

    /// Nothing declared.
    package init() {}

    /// The requests `routes` handle and `modules` send.
    package init(routes: [DeclaredRoute], modules: [DeclaredModule]) {
        routed = Set(routes.map(\.request.rawValue))
        sent = Set(modules.flatMap(\.sends).filter { $0.opens == nil }.map(\.request.rawValue).filter { !$0.isEmpty })
    }

    /// Every request named, routed or sent.
    package var all: Set<String> { routed.union(sent) }

    /// Whether the description names no request: nothing to compare with.
    package var isEmpty: Bool { routed.isEmpty && sent.isEmpty }

    /// The requests of both.
    package func union(_ other: DeclaredRequests) -> DeclaredRequests {
        var both = self
        both.routed.formUnion(other.routed)
        both.sent.formUnion(other.sent)
        return both
    }
}

extension ProbedPlugin {
    /// The requests the plugin's routes and modules name.
    package var declaredRequests: DeclaredRequests {
        DeclaredRequests(routes: routes + childFlowRoutes, modules: modules)
    }
}

extension LoadedPlugin {
    /// The requests the plugin's routes and modules name.
    package var declaredRequests: DeclaredRequests {
        DeclaredRequests(routes: description.routes, modules: description.modules)
    }
}
