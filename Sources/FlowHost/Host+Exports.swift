import FlowKit
import FlowManifest
import PluginLoading

/// What an edited manifest names that its plugins do not export, found before the edit replaces the
/// running manifest (``Host/reloadManifest()``): an edit routing to a manager the plugin lacks changes
/// nothing, as `validate` would have refused it.
extension Host {
    /// The managers of routes and experiment variants, and the services, that `manifest` names and their
    /// plugins do not export, each an error at its place in the file (`routes[3].manager`).
    ///
    /// A plugin is read as the registry has it loaded, when `manifest` declares it as the running one does,
    /// else through its probe (the cache makes that a read of a file). One that cannot be probed, or that
    /// is not loaded and that no prober may read (`--trust`), is not checked here: its routes fail with the
    /// reason when used, as at start.
    func unexported(in manifest: Manifest) -> [ManifestError] {
        var exports: [String: PluginExports?] = [:]
        func exported(by plugin: String) -> PluginExports? {
            if let known = exports[plugin] { return known }
            let found = self.exports(of: plugin, in: manifest)
            exports[plugin] = found
            return found
        }
        var errors: [ManifestError] = []
        func check(_ name: String, of plugin: String, _ kind: ManifestError.Kind, at path: String) {
            guard let exports = exported(by: plugin) else { return }
            let (what, names) =
                kind == .unknownService ? ("service", exports.services) : ("manager", exports.managers)
            guard !names.contains(name) else { return }
            errors.append(
                ManifestError(
                    file: manifest.path, path: path, kind: kind,
                    message: PluginLoadError.notExported(what, name, by: plugin, exports: names)))
        }
        for route in manifest.routes {
            guard let plugin = route.plugin, let manager = route.manager else { continue }
            check(manager, of: plugin, .unknownManager, at: "routes[\(route.index)].manager")
        }
        for experiment in manifest.experiments.values.sorted(by: { $0.name < $1.name }) {
            for (index, variant) in experiment.variants.enumerated() {
                let path = ManifestParser.path("experiments", key: experiment.name) + ".variants[\(index)].manager"
                check(variant.manager, of: variant.plugin, .unknownManager, at: path)
            }
        }
        for (index, service) in manifest.services.enumerated() {
            check(service.service, of: service.plugin, .unknownService, at: "services[\(index)].service")
        }
        return errors
    }

    /// The managers and services of plugin `plugin` as `manifest` declares it; `nil` when they cannot be
    /// known without loading it.
    private func exports(of plugin: String, in manifest: Manifest) -> PluginExports? {
        guard let entry = manifest.plugins[plugin] else { return nil }
        if let slot = registry.slot(plugin), slot.entry == entry, case .loaded(let loaded) = slot.status {
            return PluginExports(
                managers: loaded.description.managers.map(\.name), services: loaded.description.services.map(\.name))
        }
        guard let prober = registry.prober,
            let path = try? registry.searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: plugin),
            let probed = try? prober.probe(path, pin: entry.sha256)
        else { return nil }
        return PluginExports(managers: probed.managers.map(\.name), services: probed.services)
    }
}

/// The names a plugin exports, as a manifest refers to them.
private struct PluginExports {
    var managers: [String]
    var services: [String]
}
