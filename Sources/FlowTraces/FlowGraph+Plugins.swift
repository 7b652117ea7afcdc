import FlowComposition
import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// A manifest's flow graph with the modules its plugins declare, read by probes in child processes (never
/// loaded in this one): what `flowhost graph MANIFEST` draws.
extension FlowGraph {
    /// A plugin whose declarations the graph lacks, and why: it could not be read.
    package struct UnreadPlugin: Sendable, Hashable, CustomStringConvertible {
        /// The plugin, by the name the manifest gives it; `nil` when no plugin was read (none is built).
        package var plugin: String?
        /// Why: the file and the cause.
        package var error: PluginLoadError

        package init(plugin: String?, error: PluginLoadError) {
            self.plugin = plugin
            self.error = error
        }

        /// `plugin 'catalog' drawn without its modules: /p/libCatalogPlugin.so: plugin library not found`.
        package var description: String {
            let drawn = plugin.map { "plugin '\($0)' drawn without its modules" }
            return (drawn ?? "drawn without the modules of plugins that could not be read") + ": \(error.description)"
        }
    }

    /// The static graph of `manifest` with the modules its plugins declare (``add(declarations:)``).
    ///
    /// Each plugin is probed through `prober` (and its registry cache); a pinned library's digest is
    /// checked first. A manifest that discovers plugins is drawn as it composes with them: the routes they
    /// declare, as precedence leaves them. A plugin that cannot be read (missing, not built, refused,
    /// quarantined) costs only its modules: the manifest's routes to it are drawn all the same.
    ///
    /// - Returns: The graph, the plugins it lacks the modules of, one each (one for all when the bundled
    ///   plugins are not built), and, for a manifest that discovers plugins, the composition drawn: its
    ///   ``PluginComposition/unreadDirectories`` (whatever plugins they were to hold drawn from the manifest
    ///   alone) and its ``PluginComposition/discoveryWarnings(file:)`` are what `validate` says of them.
    @MainActor
    package static func reading(
        _ manifest: Manifest, searchPath: PluginSearchPath, prober: PluginProber,
        executableDirectory: String? = ProcessInfoLite.executableDirectory()
    ) -> (graph: FlowGraph, unread: [UnreadPlugin], composition: PluginComposition?) {
        if let unbuilt = searchPath.unbuiltPlugins(of: manifest, executableDirectory: executableDirectory) {
            return (FlowGraph(manifest: manifest), [UnreadPlugin(plugin: nil, error: unbuilt)], nil)
        }
        var probed: [String: ProbedPlugin] = [:]
        var unread: [UnreadPlugin] = []
        var drawn = manifest
        var composed: PluginComposition?
        if let composition = PluginComposition.discovered(by: manifest, searchPath: searchPath, prober: prober) {
            drawn = composition.manifest
            composed = composition
            for plugin in composition.plugins {
                switch plugin.state {
                case .active:
                    if let probe = plugin.probe { probed[plugin.name] = probe }
                case .refused(let error):
                    unread.append(UnreadPlugin(plugin: plugin.name, error: error))
                case .excluded, .overridden, .removed:
                    continue
                }
            }
            // Libraries of the discovered directories that no plugin came of: crashed, hung, refused.
            for error in composition.broken where !unread.contains(where: { $0.error == error }) {
                unread.append(UnreadPlugin(plugin: nil, error: error))
            }
        } else {
            let survey = PluginSurvey(manifest: manifest, searchPath: searchPath, prober: prober)
            for name in survey.results.keys.sorted() {
                switch survey.results[name]! {
                case .success(let plugin): probed[name] = plugin
                case .failure(let error): unread.append(UnreadPlugin(plugin: name, error: error))
                }
            }
        }
        var graph = FlowGraph(manifest: drawn, composition: composed)
        graph.add(plugins: probed)
        return (graph, unread, composed)
    }
}
