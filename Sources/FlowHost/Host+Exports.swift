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
    /// A plugin is read as the registry has it loaded, when `manifest` declares it as the running one does and it is in
    /// use, or its file still holds the loaded bytes; else through its probe (the cache makes that a read of a file):
    /// one an edit dropped is read from its file, which may hold another build by now. One that cannot be probed, or
    /// that is not loaded and that no prober may read (`--trust`), is not checked here: its routes fail with the reason
    /// when used, as at start.
    func unexported(in manifest: Manifest) -> [ManifestError] {
        var exports: [String: PluginExports?] = [:]
        func exported(by plugin: String) -> PluginExports? {
            if let known = exports[plugin] { return known }
            let found = self.exports(of: plugin, in: manifest)
            exports[plugin] = found
            return found
        }
        var errors: [ManifestError] = []
        for reference in manifest.exportReferences() {
            guard let place = reference.place, let exports = exported(by: reference.plugin) else { continue }
            let (what, names) = reference.isService ? ("service", exports.services) : ("manager", exports.managers)
            guard !names.contains(reference.name) else { continue }
            errors.append(
                ManifestError(
                    file: manifest.path, path: place, kind: reference.isService ? .unknownService : .unknownManager,
                    message: PluginLoadError.notExported(what, reference.name, by: reference.plugin, exports: names)))
        }
        return errors
    }

    /// The managers of routes and experiment variants that `manifest` names and that a plugin already loaded
    /// (its services started it) does not export, each at its place in the file, as `run --eager` says them:
    /// loading nothing more, this says at the start what would otherwise fail only when the route is first
    /// used (``PluginRegistry/manager(_:in:)``).
    static func unexportedByLoadedPlugins(in manifest: Manifest, registry: PluginRegistry) -> [PluginLoadError] {
        let loaded = Set(
            registry.slots.compactMap { name, slot in
                if case .loaded = slot.status { name } else { nil }
            })
        guard !loaded.isEmpty else { return [] }
        var problems: [PluginLoadError] = []
        for reference in manifest.exportReferences(of: loaded) where !reference.isService {
            guard let place = reference.place, let slot = registry.slot(reference.plugin),
                case .loaded(let plugin) = slot.status
            else { continue }
            let names = plugin.description.managers.map(\.name)
            guard !names.contains(reference.name) else { continue }
            problems.append(
                PluginLoadError(
                    file: manifest.path, kind: .unknownManager,
                    message: PluginLoadError.notExported(
                        "manager", reference.name, by: reference.plugin, exports: names),
                    place: place))
        }
        return problems
    }

    /// The managers and services of plugin `plugin` as `manifest` declares it; `nil` when they cannot be
    /// known without loading it.
    private func exports(of plugin: String, in manifest: Manifest) -> PluginExports? {
        guard let entry = manifest.plugins[plugin] else { return nil }
        if let slot = registry.slot(plugin), slot.entry == entry, case .loaded(let loaded) = slot.status,
            registry.isInUse(plugin)
                || (slot.fingerprint != nil && registry.libraryFingerprint(of: slot) == slot.fingerprint)
        {
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
