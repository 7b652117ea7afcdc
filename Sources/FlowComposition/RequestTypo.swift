import FlowKit
import FlowManifest
import PluginLoading

/// A request name that looks mistyped, found by comparing the manifest's routes with what the plugins declare
/// (``DeclaredRequests``): a routed request no plugin declares or sends, near one that one does; or a request a
/// plugin's module sends that nothing routes, near one that is. A warning of `flowhost validate`: the
/// manifest stays valid (a request may be meant for a plugin that declares nothing), but at run time an
/// action would find no route, and the shell's hint would point at the action rather than the manifest.
package struct RequestTypo: Sendable, Hashable, CustomStringConvertible {
    /// The manifest, or the library whose module sends the request.
    package var file: String
    /// Where in the manifest (`routes[1].request`); `nil` for a module's send.
    package var place: String?
    package var request: String
    /// The declared (or routed) request it is near.
    package var nearest: String
    /// What is wrong, without the file and place.
    package var message: String

    /// `app.json: warning: routes[1].request: no plugin declares or sends 'greting.wave'; did you mean ...`.
    package var description: String {
        "\(file): warning: \(place.map { "\($0): " } ?? "")\(message)"
    }

    /// The typos of `written`, the manifest as written, whose routes in force are `routes` (with what
    /// discovery composed), given the plugins probed, by name.
    ///
    /// A route to a plugin that declares nothing is not judged, nor anything when no plugin declares a
    /// request: there is nothing to compare with; nor a route for a request the manifest sends itself (a start
    /// request, a deep link's step, a guard's redirect).
    package static func find(
        in written: Manifest, routes: [Manifest.Route], plugins: [String: ProbedPlugin]
    ) -> [RequestTypo] {
        let names = plugins.keys.sorted()
        let declared = names.reduce(DeclaredRequests()) {
            $0.union(plugins[$1]?.declaredRequests ?? DeclaredRequests())
        }
        guard !declared.isEmpty else { return [] }
        var typos: [RequestTypo] = []
        let known = declared.all
        let sentByTheManifest = Set(
            (written.start + written.deepLinks.routes.flatMap(\.steps) + written.guards.map(\.redirect))
                .map(\.name.rawValue))
        for route in written.routes
        where !known.contains(route.request.rawValue) && !sentByTheManifest.contains(route.request.rawValue) {
            if let plugin = route.plugin, plugins[plugin]?.declaredRequests.isEmpty ?? true { continue }
            let request = route.request.rawValue
            guard let nearest = Suggestion.closest(to: request, among: known) else { continue }
            typos.append(
                RequestTypo(
                    file: written.path, place: "routes[\(route.index)].request", request: request, nearest: nearest,
                    message: "no plugin declares or sends '\(request)'; did you mean '\(nearest)'?"))
        }
        let handled = declared.routed.union(routes.map(\.request.rawValue))
        for name in names {
            guard let plugin = plugins[name] else { continue }
            var seen: Set<String> = []
            for module in plugin.modules {
                for send in module.sends where send.opens == nil {
                    let request = send.request.rawValue
                    guard !request.isEmpty, !handled.contains(request), seen.insert(request).inserted,
                        let nearest = Suggestion.closest(to: request, among: handled),
                        // A route said mistyped already, near this send: one mistake, one warning.
                        !typos.contains(where: { $0.place != nil && $0.request == nearest })
                    else { continue }
                    let action = send.action.map { " (action '\($0)')" } ?? ""
                    typos.append(
                        RequestTypo(
                            file: plugin.path, place: nil, request: request, nearest: nearest,
                            message:
                                "plugin '\(name)' declares module '\(module.module)' sending '\(request)'\(action), which neither the manifest nor any plugin routes; did you mean '\(nearest)'?"
                        ))
                }
            }
        }
        return typos
    }
}
