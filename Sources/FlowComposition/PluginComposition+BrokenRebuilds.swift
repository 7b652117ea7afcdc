import FlowKit
import PluginLoading

/// Rebuilt libraries whose declarations name a manager or service they no longer export: a reload the host
/// refuses, as `validate` calls such a build invalid, rather than one that quietly leaves a route failing.
extension PluginComposition {
    /// The libraries of plugins in use in `previous` whose new build declares a route (a child flow's included)
    /// to a manager it does not export, or asks to start a service it does not export, where the build before
    /// did not, each with its refusal, by path. A declaration the build before got wrong as well is left as the
    /// discovery problem it was, so that a plugin with an old mistake still reloads.
    ///
    /// - Parameter previous: The composition in force, which this one would replace.
    /// - Returns: Each library's refusal, the first new problem's error (``PluginLoadError/Kind/unknownManager``
    ///   or ``PluginLoadError/Kind/unknownService``); empty when there is none.
    func brokenRebuilds(after previous: PluginComposition) -> [String: PluginLoadError] {
        var refusals: [String: PluginLoadError] = [:]
        for plugin in plugins where plugin.isActive {
            guard let probe = plugin.probe, let before = previous.plugin(named: plugin.name)?.probe, probe != before
            else { continue }
            let problems = Self.newProblems(of: probe, before: before)
            guard var first = problems.first else { continue }
            first.file = plugin.library
            if problems.count > 1 { first.message += " (and \(problems.count - 1) more)" }
            refusals[plugin.library] = first
        }
        return refusals
    }

    /// The routes and service starts `probe` declares that name what it does not export, leaving out those
    /// `before` declared too and did not export either.
    static func newProblems(of probe: ProbedPlugin, before: ProbedPlugin) -> [PluginLoadError] {
        let brokenBefore = Set((before.routes + before.childFlowRoutes).filter { before.routeProblem($0) != nil })
        let missingBefore = Set(before.startServices.filter { before.startProblem($0) != nil }.map(\.name))
        let routes = (probe.routes + probe.childFlowRoutes).filter { !brokenBefore.contains($0) }
        let starts = probe.startServices.filter { !missingBefore.contains($0.name) }
        return routes.compactMap(probe.routeProblem) + starts.compactMap(probe.startProblem)
    }
}
