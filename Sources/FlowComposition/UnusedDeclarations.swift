import FlowKit
import FlowManifest
import PluginLoading

/// What a plugin declares that a manifest listing it in `plugins`, and discovering nothing, does not use.
///
/// Declared routes, services to start, guards and deep links are proposals to a manifest that discovers
/// plugins (docs/authoring.md section 15); a manifest that only lists its plugins uses its own entries
/// alone. This says which of a listed plugin's proposals that leaves out, so that `validate` and a failing
/// `open` can say so instead of the declarations going silently unused.
package struct UnusedDeclarations: Sendable, Equatable {
    /// The plugin's key in the manifest's `plugins`.
    package var plugin: String
    /// Declared routes the manifest does not route, as the shell writes them: `greeting.wave from greeting`.
    package var routes: [String]
    /// Services it asks to start that the manifest's `services` do not start.
    package var services: [String]
    /// Declared guards the manifest has none of that name of.
    package var guards: [String]
    /// Declared deep link patterns the manifest has none of, as written.
    package var deepLinks: [String]

    /// What `probe`, the plugin `plugin` that `manifest` lists, declares and `manifest` does not use; `nil`
    /// when the manifest discovers plugins (it then takes listed plugins' declarations too) or uses them all.
    package init?(plugin: String, probe: ProbedPlugin, manifest: Manifest) {
        guard !manifest.discovers else { return nil }
        let routed = Set(manifest.routes.map { PluginComposition.RouteKey($0.request, from: $0.module) })
        let started = Set(manifest.services)
        let guarded = Set(manifest.guards.map(\.name))
        let linked = Set(manifest.deepLinks.routes.map(\.pattern.description))
        self.plugin = plugin
        routes = probe.routes.filter { !routed.contains(PluginComposition.RouteKey($0.request, from: $0.from)) }
            .map { $0.request.rawValue + ($0.from.map { " from \($0.rawValue)" } ?? "") }
        services = probe.startServices.map(\.name).filter {
            !started.contains(Manifest.ServiceRef(plugin: plugin, service: $0))
        }
        guards = probe.guards.map(\.name).filter { !guarded.contains($0) }
        deepLinks = probe.deepLinks.map(\.pattern).filter { !linked.contains($0) }
        if routes.isEmpty && services.isEmpty && guards.isEmpty && deepLinks.isEmpty { return nil }
    }

    /// What each of `plugins` (probes by plugin name) that `manifest` lists declares and it does not use, in
    /// the order of their names.
    package static func find(in manifest: Manifest, plugins: [String: ProbedPlugin]) -> [UnusedDeclarations] {
        manifest.plugins.keys.sorted().compactMap { name in
            plugins[name].flatMap { UnusedDeclarations(plugin: name, probe: $0, manifest: manifest) }
        }
    }

    /// One line: `plugin 'greeting' is listed, not discovered, so what it declares is not in effect:
    /// 1 guard (named), 1 deep link (greet://wave/{to}); add them to the manifest, or discover the plugin`.
    package var description: String {
        func counted(_ names: [String], _ noun: String, _ plural: String) -> String? {
            guard !names.isEmpty else { return nil }
            return "\(names.count) \(names.count == 1 ? noun : plural) (\(names.joined(separator: ", ")))"
        }
        let parts = [
            counted(routes, "route", "routes"), counted(services, "service to start", "services to start"),
            counted(guards, "guard", "guards"), counted(deepLinks, "deep link", "deep links"),
        ].compactMap { $0 }
        let sections = [
            routes.isEmpty ? nil : "routes", services.isEmpty ? nil : "services", guards.isEmpty ? nil : "guards",
            deepLinks.isEmpty ? nil : "deepLinks",
        ].compactMap { $0 }
        return
            "plugin '\(plugin)' is listed in plugins, not discovered, so what it declares is not in effect: \(parts.joined(separator: ", ")); add them to the manifest's \(Self.list(sections)), or discover the plugin (\"discover\")"
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + words.last!
    }
}
