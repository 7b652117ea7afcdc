import FlowKit
import FlowManifest
import PluginLoading

/// Rebuilt libraries that no longer route what the manifest itself sends: a reload the host refuses, as it
/// refuses a manifest edit that leaves one of those requests unrouted (``composedManifestErrors``).
extension PluginComposition {
    /// A request the manifest itself sends, which a composed route must handle: a `start` request (from the
    /// app), a deep link's first step or a guard's redirect (from any module).
    struct ManifestRequest {
        /// The request's name.
        var request: String
        /// Whether only a route from the app handles it: a start request's, which the app sends.
        var fromAppOnly: Bool
        /// What the manifest does with it, for the refusal: `which the manifest's start[0] sends`.
        var use: String
    }

    /// The requests the manifest itself sends, in the order ``composedManifestErrors`` reports them: its
    /// start requests, its deep links' first steps, its guards' redirects.
    var manifestRequests: [ManifestRequest] {
        let starts = declared.start.enumerated().map { index, request in
            ManifestRequest(
                request: request.name.rawValue, fromAppOnly: true, use: "which the manifest's start[\(index)] sends")
        }
        let links = declared.deepLinks.routes.enumerated().compactMap { index, link in
            link.steps.first.map { step in
                ManifestRequest(
                    request: step.name.rawValue, fromAppOnly: false,
                    use: "the first step of the manifest's deepLinks[\(index)]")
            }
        }
        let redirects = declared.guards.enumerated().map { index, redirectGuard in
            ManifestRequest(
                request: redirectGuard.redirect.name.rawValue, fromAppOnly: false,
                use: "which the manifest's guards[\(index)] redirects to")
        }
        return starts + links + redirects
    }

    /// Whether a composed route handles `need`: one it routes, or one that fails with why.
    func handles(_ need: ManifestRequest) -> Bool {
        handledRouteKeys.contains { key in
            key.request.rawValue == need.request && (!need.fromAppOnly || (key.module ?? .app) == .app)
        }
    }

    /// The plugin whose declared route handles `need`; `nil` when the manifest routes it, or nothing does.
    func declarer(of need: ManifestRequest) -> String? {
        for route in manifest.routes
        where route.request.rawValue == need.request && (!need.fromAppOnly || (route.module ?? .app) == .app) {
            if case .plugin(let name)? = sources[RouteKey(route.request, from: route.module)] { return name }
        }
        return nil
    }

    /// The libraries whose new declarations leave unrouted a request the manifest sends that `previous` routed
    /// with the declarations of their last build, each with its refusal, by path: the start requests, deep
    /// links' first steps and guard redirects a manifest edit may not leave unrouted either. A library removed
    /// is no such thing: its routes fail with why, which handles its requests.
    ///
    /// - Parameter previous: The composition in force, which this one would replace.
    /// - Returns: Each library's refusal (``PluginLoadError/Kind/droppedRoute``), naming the first request it
    ///   would leave unrouted; empty when there is none.
    func droppedRoutes(after previous: PluginComposition) -> [String: PluginLoadError] {
        var dropped: [(library: String, plugin: Plugin, needs: [ManifestRequest])] = []
        for need in manifestRequests where !handles(need) && previous.handles(need) {
            guard let name = previous.declarer(of: need), let before = previous.plugin(named: name)?.probe,
                let plugin = plugin(named: name), plugin.isActive, let probe = plugin.probe, probe != before
            else { continue }
            if let index = dropped.firstIndex(where: { $0.library == plugin.library }) {
                dropped[index].needs.append(need)
            } else {
                dropped.append((plugin.library, plugin, [need]))
            }
        }
        var refusals: [String: PluginLoadError] = [:]
        for (library, plugin, needs) in dropped {
            let first = needs[0]
            let declares = plugin.probe?.routes.contains { $0.request.rawValue == first.request } == true
            let more = needs.count > 1 ? " (and \(needs.count - 1) more the manifest sends)" : ""
            refusals[library] = PluginLoadError(
                file: library, kind: .droppedRoute,
                message: (declares
                    ? "its route for '\(first.request)' is no longer taken, "
                    : "it no longer declares a route for '\(first.request)', ")
                    + first.use + more)
        }
        return refusals
    }
}
