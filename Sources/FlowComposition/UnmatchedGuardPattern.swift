import FlowKit
import FlowManifest
import PluginLoading

/// A guard's request pattern that matches no request a route of the composed manifest handles, nor any a
/// plugin declares its child flows route (``PluginLoading/ProbedPlugin/childFlowRoutes``): the guard redirects
/// nothing it names, unless a child flow routes such a request without declaring it.
///
/// A warning of `flowhost validate`, which leaves the manifest valid: a guard may be written ahead of the
/// plugin that routes what it guards. A listing manifest's pattern that looks like a misspelt routed request
/// is a ``FlowManifest/ManifestError/Kind/badGuard`` error of the parser instead; this covers the rest, and
/// every guard of a manifest that discovers plugins, the plugins' own included.
package struct UnmatchedGuardPattern: Sendable, Hashable, CustomStringConvertible {
    /// The manifest, for one of its own guards; the library of the plugin that declared the guard, for a
    /// plugin's.
    package var file: String
    /// Where in the manifest the pattern is (`guards[0].requests[1]`); `nil` for a plugin's guard.
    package var place: String?
    /// The plugin that declared the guard; `nil` for the manifest's own.
    package var plugin: String?
    /// The guard's name.
    package var guardName: String
    package var pattern: String
    /// The pattern a typo may have meant (``FlowManifest/Manifest/patternCandidates(_:)``), when one is near.
    package var suggestion: String?

    /// What is wrong, without the file and place.
    package var message: String {
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        let what =
            plugin.map { "plugin '\($0)' declares guard '\(guardName)' with pattern '\(pattern)', which" }
            ?? "pattern '\(pattern)' of guard '\(guardName)'"
        return
            "\(what) matches no routed request\(hint); it can only apply to requests a plugin's child flow routes without declaring them"
    }

    /// `app.json: warning: guards[0].requests[0]: pattern 'checkout.*' of guard 'signedIn' matches no routed
    /// request; ...`.
    package var description: String {
        "\(file): warning: \(place.map { "\($0): " } ?? "")\(message)"
    }

    /// The patterns of `manifest`'s guards that match none of `routed` nor any request the `plugins` declare
    /// their child flows route, in the guards' order.
    ///
    /// - Parameters:
    ///   - manifest: The manifest in force: for one that discovers plugins, what it composes to, whose guards
    ///     are its own (first, in its order) and then the plugins'.
    ///   - sources: Who declared each guard, by name (``PluginComposition/guardSources``); a guard not in it is
    ///     the manifest's own.
    ///   - routed: Every request a route of `manifest` handles, from any module.
    ///   - plugins: What the probed plugins declare, by name.
    package static func find(
        in manifest: Manifest, sources: [String: PluginComposition.Source] = [:], routed: Set<String>,
        plugins: [String: ProbedPlugin]
    ) -> [UnmatchedGuardPattern] {
        let known = ProbedPlugin.knownRequests(routed: routed, childFlowsOf: plugins.values)
        let candidates = Manifest.patternCandidates(known)
        var found: [UnmatchedGuardPattern] = []
        for (index, redirectGuard) in manifest.guards.enumerated() {
            let (plugin, file) = PluginComposition.Source.declarer(
                of: redirectGuard.name, in: sources, manifest: manifest, plugins: plugins)
            for (patternIndex, pattern) in redirectGuard.requests.enumerated()
            where !known.contains(where: { pattern.matches(CoordinationRequestName($0)) }) {
                found.append(
                    UnmatchedGuardPattern(
                        file: file,
                        place: plugin == nil ? "guards[\(index)].requests[\(patternIndex)]" : nil, plugin: plugin,
                        guardName: redirectGuard.name, pattern: pattern.text,
                        suggestion: Suggestion.closest(to: pattern.text, among: candidates)))
            }
        }
        return found
    }
}
