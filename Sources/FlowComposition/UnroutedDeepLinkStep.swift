import FlowKit
import FlowManifest
import PluginLoading

/// A deep link's later step (the second or after) whose request no route of the composed manifest handles and
/// no plugin declares a child flow routes (``ProbedPlugin/knownRequests(routed:childFlowsOf:)``): the link
/// fails at that step unless a child flow an earlier step opens routes it without declaring it.
///
/// A warning of `flowhost validate`, which leaves the manifest valid: only the plugins' code knows every
/// request their child flows route (``FlowManifest/Manifest/unroutedDeepLinks(routed:)`` says why a later step
/// cannot be an error, where an unrouted first step is). Both the manifest's own deep links and those plugins
/// declare, for a manifest that discovers them.
package struct UnroutedDeepLinkStep: Sendable, Hashable, CustomStringConvertible {
    /// The manifest, for one of its own deep links; the library of the plugin that declared the link, for a
    /// plugin's.
    package var file: String
    /// Where in the manifest the step is (`deepLinks[0].requests[1]`); `nil` for a plugin's deep link.
    package var place: String?
    /// The plugin that declared the deep link; `nil` for the manifest's own.
    package var plugin: String?
    /// The deep link's pattern.
    package var pattern: String
    /// The step's index in the link's requests, from 1 (the first step, 0, is never one of these).
    package var step: Int
    package var request: String
    /// The known request a typo may have meant, when one is near.
    package var suggestion: String?

    /// What is wrong, without the file and place.
    package var message: String {
        let hint =
            suggestion.map { "did you mean \(quoted($0))?" }
            ?? "the link fails at that step unless a child flow an earlier step opens routes it"
        guard let plugin else {
            return "no route handles \(quoted(request)) and no plugin declares a child flow that routes it; \(hint)"
        }
        return
            "plugin '\(plugin)' declares deep link '\(pattern)' whose step \(step + 1), \(quoted(request)), no route "
            + "handles and no plugin declares a child flow that routes; \(hint)"
    }

    /// `app.json: warning: deepLinks[0].requests[1]: no route handles "catalog.detial" and no plugin declares
    /// a child flow that routes it; did you mean "catalog.detail"?`.
    package var description: String {
        "\(file): warning: \(place.map { "\($0): " } ?? "")\(message)"
    }

    /// The later steps of `manifest`'s deep links that name none of `routed` nor any request the `plugins`
    /// declare their child flows route, in the links' order.
    ///
    /// - Parameters:
    ///   - manifest: The manifest in force: for one that discovers plugins, what it composes to, whose deep
    ///     links are its own (first, in its order) and then the plugins'.
    ///   - sources: Who declared each deep link, by pattern (``PluginComposition/deepLinkSources``); a link not
    ///     in it is the manifest's own.
    ///   - routed: Every request a route of `manifest` handles, from any module.
    ///   - plugins: What the probed plugins declare, by name.
    package static func find(
        in manifest: Manifest, sources: [String: PluginComposition.Source] = [:], routed: Set<String>,
        plugins: [String: ProbedPlugin]
    ) -> [UnroutedDeepLinkStep] {
        let known = ProbedPlugin.knownRequests(routed: routed, childFlowsOf: plugins.values)
        var found: [UnroutedDeepLinkStep] = []
        for (index, link) in manifest.deepLinks.routes.enumerated() {
            let pattern = link.pattern.description
            let (plugin, file) = PluginComposition.Source.declarer(
                of: pattern, in: sources, manifest: manifest, plugins: plugins)
            for (step, request) in link.steps.enumerated().dropFirst() where !known.contains(request.name.rawValue) {
                found.append(
                    UnroutedDeepLinkStep(
                        file: file,
                        place: plugin == nil ? "deepLinks[\(index)].requests[\(step)]" : nil, plugin: plugin,
                        pattern: pattern, step: step, request: request.name.rawValue,
                        suggestion: Suggestion.closest(to: request.name.rawValue, among: known)))
            }
        }
        return found
    }
}
