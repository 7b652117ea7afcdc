import FlowKit
import FlowManifest
import PluginLoading

/// The plugins of a composition: those the manifest lists and those its directories hold, each active,
/// refused, removed, excluded or overridden, as discovery found them and as the composition before kept them.
extension PluginComposition {
    /// Takes into ``plugins`` each plugin the manifest lists, each one `discovery` found (an excluded or
    /// overridden one with why), and each of `previous`'s gone since: removed, or kept as it was while its
    /// library is `awaiting` its return. A library that cannot be probed now keeps what its last probe found
    /// (``init(manifest:discovery:previous:awaiting:refusing:)``). The problems found are added to ``problems``
    /// (a broken library's to ``broken`` too); a library written over with one that is no plugin is taken out
    /// of ``skipped``, as the broken file of the plugin it was.
    mutating func collectPlugins(
        _ discovery: PluginDiscovery, previous: PluginComposition?, awaiting: Set<String>,
        refusing: [String: PluginLoadError]
    ) {
        // A probe refused for what it found is a failed one; `path` is the library's, as found.
        func refused(_ probe: Result<ProbedPlugin, PluginLoadError>, at path: String? = nil)
            -> Result<ProbedPlugin, PluginLoadError>
        {
            guard case .success(let probed) = probe, let refusal = refusing[path ?? probed.path] else { return probe }
            return .failure(refusal)
        }
        // The plugin of `previous` called `name`, in use, whose library vanished and is waited for: kept.
        func awaited(_ name: String, listed: Bool) -> Plugin? {
            previous?.plugins.first { plugin in
                plugin.name == name && plugin.isActive && plugin.probe != nil && (plugin.directory == nil) == listed
                    && awaiting.contains(Manifest.absolutePath(plugin.library))
            }
        }
        for name in declared.plugins.keys.sorted() {
            switch discovery.declared[name].map({ refused($0) }) {
            case .success(let probe)?:
                plugins.append(Plugin(name: name, library: probe.path, directory: nil, probe: probe, state: .active))
            case .failure(let error)?:
                if error.kind == .notFound, previous?.declared.plugins[name] == declared.plugins[name],
                    let kept = awaited(name, listed: true)
                {
                    plugins.append(kept)  // not a problem while it may come back
                    continue
                }
                problems.append(error)
                plugins.append(declaredPlugin(name, failing: error, previous: previous))
            case nil:
                break
            }
        }
        // A library that was a plugin's and is still there, but cannot be probed now, keeps that plugin as it
        // was: it is a bad build or a copy not finished, as a refused reload is, not a removal.
        let probedBefore = Dictionary(
            (previous?.plugins ?? []).filter { plugin in
                guard plugin.directory != nil, plugin.probe != nil else { return false }
                if case .removed = plugin.state { return false }
                return true
            }.map { ($0.library, $0) },
            uniquingKeysWith: { first, _ in first })
        var libraries = discovery.libraries.map {
            (path: $0.path, directory: $0.directory, probe: refused($0.probe, at: $0.path))
        }
        for error in discovery.skipped {
            // Written over with a library that is not a plugin: the plugin's file, broken.
            guard let directory = probedBefore[error.file]?.directory else { continue }
            skipped.removeAll { $0 == error }
            libraries.append((error.file, directory, .failure(error)))
        }
        for library in libraries {
            var probeFailure: PluginLoadError?
            let probe: ProbedPlugin
            switch library.probe {
            case .success(let probed): probe = probed
            case .failure(let error):
                problems.append(error)
                broken.append(error)
                guard let kept = probedBefore[library.path]?.probe else { continue }
                probe = kept
                probeFailure = error
            }
            var plugin = Plugin(
                name: probe.name, library: library.path, directory: library.directory, probe: probe, state: .active,
                probeFailure: probeFailure)
            if probe.name.isEmpty
                || probe.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                problems.append(
                    PluginLoadError(
                        file: library.path, kind: .badHeader,
                        message:
                            "its plugin name \(quoted(probe.name)) is empty or holds a control character; it is not loaded"
                    ))
                continue
            }
            if let index = declared.exclude.plugins.firstIndex(of: probe.name) {
                plugin.state = .excluded(by: "exclude.plugins[\(index)]")
            } else if declared.plugins[probe.name] != nil {
                plugin.state = .overridden(by: "plugins.\(probe.name)")
            } else if let first = plugins.first(where: { $0.name == probe.name && $0.directory != nil && $0.isActive })
            {
                plugin.state = .overridden(by: first.library)
                problems.append(
                    PluginLoadError(
                        file: library.path, kind: .duplicatePlugin,
                        message:
                            "plugin '\(probe.name)' is also \(first.library), found first; only that one is used; remove one of them"
                    ))
            }
            plugins.append(plugin)
        }
        // Gone is gone from every directory: a plugin still found, but excluded or overridden now, is that.
        for gone in previous?.plugins ?? []
        where gone.directory != nil && !plugins.contains(where: { $0.name == gone.name }) {
            switch gone.state {
            case .active
            where awaited(gone.name, listed: false) != nil && gone.directory.map(directories.contains) == true
                && declared.plugins[gone.name] == nil && !declared.exclude.plugins.contains(gone.name):
                plugins.append(gone)
            case .active, .removed:
                plugins.append(
                    Plugin(
                        name: gone.name, library: gone.library, directory: gone.directory, probe: gone.probe,
                        state: .removed))
            default: break
            }
        }
    }

    /// The plugin of the manifest's `plugins` called `name`, whose library could not be probed (`error`).
    ///
    /// One that was in use before, whose entry in `plugins` (library and `sha256`) is unchanged and whose library is
    /// still in place, keeps its state and what its last probe found, as a discovered library written over does: it is
    /// a bad build or a copy not finished, and the generation loaded from it under that entry keeps serving. So does
    /// one whose entry an edit moved to another library (its pin unchanged), or one discovered before that an edit
    /// lists, at a library that looks still being written
    /// (``PluginLoadError/isIncompleteFile``): a watching host reloads it from there once it is whole, as it does a
    /// rebuild (one not loaded yet loads from there when first used). Any other is refused; one that was in use keeps
    /// its last probe's declarations, so that its routes fail with `error` rather than go unrouted. Another edit of its
    /// entry (another pin, say) is not kept: the host loads an edited entry afresh from its file, and a generation
    /// loaded under another pin is not vouched for by this one.
    private func declaredPlugin(_ name: String, failing error: PluginLoadError, previous: PluginComposition?)
        -> Plugin
    {
        let before = previous?.plugins.first { $0.name == name && $0.directory == nil && $0.probe != nil }
        if let before, before.isActive, previous?.declared.plugins[name] == declared.plugins[name],
            error.kind != .notFound, error.file == before.library
        {
            return Plugin(
                name: name, library: before.library, directory: nil, probe: before.probe, state: .active,
                probeFailure: error)
        }
        // Listed or discovered before (a discovered one now listed at the file it was found at, which its build is
        // rewriting, too).
        let served = previous?.plugins.first { $0.name == name && $0.isActive && $0.probe != nil }
        if let served, error.isIncompleteFile, error.file != served.library || served.directory != nil,
            previous?.declared.plugins[name]?.sha256 == declared.plugins[name]?.sha256
        {
            return Plugin(
                name: name, library: error.file, directory: nil, probe: served.probe, state: .active,
                probeFailure: error)
        }
        return Plugin(
            name: name, library: error.file, directory: nil, probe: before?.probe ?? served?.probe,
            state: .refused(error))
    }
}
