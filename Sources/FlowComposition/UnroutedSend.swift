import FlowKit
import FlowManifest
import PluginLoading

/// A request a plugin's module declares it sends that no route in force handles, and that is near no routed
/// request (``RequestTypo`` warns of those): a note of `flowhost validate`, which leaves the manifest valid
/// (another app may route it), since at run time the action that sends it fails with `no route handles`.
///
/// A request a plugin's child flows route (``PluginLoading/ProbedPlugin/childFlowRoutes``) counts as
/// handled; a plugin's declared routes count only as far as the manifest takes them (a listed plugin's are
/// not in effect, ``UnusedDeclarations``).
package struct UnroutedSend: Sendable, Hashable, CustomStringConvertible {
    /// The plugin's name in the manifest.
    package var plugin: String
    /// The module that sends the request.
    package var module: String
    /// The request no route handles.
    package var request: String
    /// The action that sends it, when the module names one.
    package var action: String?
    /// Why the manifest sets aside a plugin's declared route for it (`excluded by exclude.routes[0]`), when it
    /// does: the manifest means it, and is not told to route it.
    package var setAside: String? = nil

    /// `plugin 'auth' module 'signIn' sends 'home.show' (action 'submit'), which no route handles; route it,
    /// or that action fails with "no route handles home.show"`.
    package var description: String {
        let sender = action.map { " (action '\($0)')" } ?? ""
        let fails = action == nil ? "the module's request fails" : "that action fails"
        let advice = setAside.map { "its declared route is set aside (\($0)), so" } ?? "route it, or"
        return
            "plugin '\(plugin)' module '\(module)' sends '\(request)'\(sender), which no route handles; \(advice) \(fails) with \"no route handles \(request)\""
    }

    /// The sends of `plugins` (probes by plugin name) that neither `routes`, the routes in force, nor any of
    /// the plugins' child flows handle, leaving out those `typos` already warn of; in the order of the
    /// plugins' names, then of their modules and sends. `setAside` gives, by request, why a composition set
    /// aside a declared route for it.
    package static func find(
        routes: [Manifest.Route], plugins: [String: ProbedPlugin], typos: [RequestTypo],
        setAside: [String: String] = [:]
    ) -> [UnroutedSend] {
        let handled = ProbedPlugin.knownRequests(
            routed: Set(routes.map(\.request.rawValue)), childFlowsOf: plugins.values)
        // A send RequestTypo warns of, or the one a mistyped route is near: one mistake, one warning.
        let warned = Set(typos.map { $0.place == nil ? $0.request : $0.nearest })
        var found: [UnroutedSend] = []
        for name in plugins.keys.sorted() {
            guard let probe = plugins[name] else { continue }
            for module in probe.modules {
                for send in module.sends where send.opens == nil {
                    let request = send.request.rawValue
                    guard !request.isEmpty, !handled.contains(request), !warned.contains(request) else { continue }
                    let unrouted = UnroutedSend(
                        plugin: name, module: module.module.rawValue, request: request, action: send.action,
                        setAside: setAside[request])
                    if !found.contains(unrouted) { found.append(unrouted) }
                }
            }
        }
        return found
    }
}
