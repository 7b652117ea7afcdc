import FlowKit
import PluginLoading

extension ProbedPlugin {
    /// The requests `validate` knows something routes: `routed`, those a route of the manifest in force
    /// handles, and every request one of `plugins` declares its child flows route (``childFlowRoutes``),
    /// which no manifest takes but a module inside such a flow finds routed.
    ///
    /// What ``UnmatchedGuardPattern`` matches guard patterns against and ``UnroutedDeepLinkStep`` looks a deep
    /// link's later steps up in.
    package static func knownRequests(routed: Set<String>, childFlowsOf plugins: some Sequence<ProbedPlugin>)
        -> Set<String>
    {
        plugins.reduce(into: routed) { known, plugin in
            known.formUnion(plugin.childFlowRoutes.map(\.request.rawValue))
        }
    }
}
