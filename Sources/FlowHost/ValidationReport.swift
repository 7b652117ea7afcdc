import FlowComposition
import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// What `flowhost validate` finds: the manifest's problems, or else every problem with its plugins, their
/// managers and services.
package struct ValidationReport: Sendable {
    /// The manifest file, as given.
    package var file: String
    /// The manifest, when it could be read and is valid.
    package var manifest: Manifest?
    /// The manifest's problems, the first ``ManifestErrors/maxListed``; the plugins are not checked when
    /// there are any. For a manifest that discovers plugins, those found once it is composed: its start
    /// requests, deep links' first steps and guard redirects that no composed route handles
    /// (``PluginComposition/composedManifestErrors``).
    package var manifestErrors: [ManifestError]
    /// How many more problems the manifest has than ``manifestErrors`` lists.
    package var omittedManifestErrors = 0
    /// The plugins' problems: libraries that do not load, managers and services they do not export.
    package var pluginErrors: [PluginLoadError]
    /// Whether the plugins are missing only because they are not built, which ``pluginErrors`` then says
    /// in one error (see ``PluginSearchPath/unbuiltPlugins(of:executableDirectory:)``).
    package var pluginsNotBuilt: Bool
    /// For a manifest that discovers plugins, what it composes to; its problems (conflicts, unmet
    /// requirements, libraries that cannot be probed) are among ``pluginErrors``.
    package var composition: PluginComposition?
    /// Context keys that two started services declare they provide: warnings, which leave the manifest
    /// valid.
    package var contextConflicts: [ContextKeyConflict] = []
    /// Requests that look mistyped, in the manifest's routes or the plugins' modules (``RequestTypo``):
    /// warnings, which leave the manifest valid.
    package var requestTypos: [RequestTypo] = []
    /// Guard request patterns that match no routed request (``UnmatchedGuardPattern``): warnings, which leave
    /// the manifest valid.
    package var unmatchedGuardPatterns: [UnmatchedGuardPattern] = []
    /// Deep links' later steps that no route handles nor any plugin declares a child flow routes
    /// (``UnroutedDeepLinkStep``): warnings, which leave the manifest valid.
    package var unroutedDeepLinkSteps: [UnroutedDeepLinkStep] = []
    /// For a manifest that lists its plugins and discovers none, what each loaded plugin declares that the
    /// manifest does not use (routes, services to start, guards, deep links): notes, which leave it valid.
    package var unusedDeclarations: [UnusedDeclarations] = []
    /// Requests the plugins' modules send that no route in force handles and that are near no routed one
    /// (``UnroutedSend``): notes, which leave the manifest valid.
    package var unroutedSends: [UnroutedSend] = []
    /// Directories of the manifest's `pluginPath` that are not there and that others could make
    /// (``CreatablePluginDirectory``): warnings, which leave the manifest valid.
    package var creatablePluginDirectories: [CreatablePluginDirectory] = []

    /// Checks the manifest at `path`, then loads every plugin it declares, found through the search path
    /// `searchPath` makes for it, and checks every route's manager and every service.
    ///
    /// - Parameters:
    ///   - maxManifestSize: The largest manifest file read, in bytes.
    ///   - allowInsecurePlugins: Load libraries whose file or directories others can write.
    ///   - prober: Probe each plugin in a child process instead of loading it here (``PluginSurvey``); `nil`
    ///     loads them in this process.
    @MainActor
    package init(
        path: String, searchPath: (Manifest) -> PluginSearchPath,
        executableDirectory: String? = ProcessInfoLite.executableDirectory(),
        maxManifestSize: Int = Manifest.defaultMaxSize, allowInsecurePlugins: Bool = false,
        prober: PluginProber? = nil
    ) {
        file = path
        pluginErrors = []
        pluginsNotBuilt = false
        do {
            manifest = try Manifest.load(path: path, maxSize: maxManifestSize)
            manifestErrors = []
        } catch {
            manifest = nil
            manifestErrors = error.errors
            omittedManifestErrors = error.omitted
        }
        guard let manifest else { return }
        creatablePluginDirectories = CreatablePluginDirectory.find(in: manifest)
        let searchPath = searchPath(manifest)
        if let unbuilt = searchPath.unbuiltPlugins(of: manifest, executableDirectory: executableDirectory) {
            pluginErrors = [unbuilt]
            pluginsNotBuilt = true
        } else if manifest.discovers {
            // Discovery reads what libraries declare in probes, never here: a prober even without one given.
            let prober = prober ?? .standard()
            prober.beginBatch()  // discovery and the survey write the registry cache once
            defer { prober.endBatch() }
            // Never nil: the manifest discovers.
            let composition = PluginComposition.discovered(
                by: manifest, searchPath: searchPath, prober: prober, allowInsecurePlugins: allowInsecurePlugins)!
            self.composition = composition
            // The parser leaves start requests, deep links and guard redirects to discovery, whose routes it does
            // not know.
            manifestErrors = composition.composedManifestErrors
            let known = Dictionary(
                composition.plugins.filter(\.isActive).compactMap { plugin in plugin.probe.map { (plugin.name, $0) } },
                uniquingKeysWith: { first, _ in first })
            let survey = PluginSurvey(
                manifest: composition.manifest, searchPath: searchPath, prober: prober, known: known,
                declared: manifest)
            pluginErrors = PluginLoadError.unique(composition.problems + survey.problems)
            contextConflicts = ContextKeyConflict.conflicts(among: composition.manifest.services) {
                composition.plugin(named: $0)?.probe?.contextKeys
            }
            let probes = survey.results.compactMapValues { try? $0.get() }
            requestTypos = RequestTypo.find(in: manifest, routes: composition.manifest.routes, plugins: probes)
            let setAside = composition.setAside.map { ($0.key.request.rawValue, $0.reason.description) }
            unroutedSends = UnroutedSend.find(
                routes: composition.manifest.routes, plugins: probes, typos: requestTypos,
                setAside: Dictionary(setAside) { first, _ in first })
            unmatchedGuardPatterns = UnmatchedGuardPattern.find(
                in: composition.manifest, sources: composition.guardSources, routed: composition.handledRequests,
                plugins: known)
            unroutedDeepLinkSteps = UnroutedDeepLinkStep.find(
                in: composition.manifest, sources: composition.deepLinkSources, routed: composition.handledRequests,
                plugins: known)
        } else if let prober {
            let survey = PluginSurvey(manifest: manifest, searchPath: searchPath, prober: prober)
            pluginErrors = PluginLoadError.unique(survey.problems + survey.requirementProblems)
            contextConflicts = ContextKeyConflict.conflicts(among: manifest.services) {
                try? survey.results[$0]?.get().contextKeys
            }
            let probes = survey.results.compactMapValues { try? $0.get() }
            requestTypos = RequestTypo.find(in: manifest, routes: manifest.routes, plugins: probes)
            unroutedSends = UnroutedSend.find(routes: manifest.routes, plugins: probes, typos: requestTypos)
            unusedDeclarations = UnusedDeclarations.find(in: manifest, plugins: probes)
            let routed = Set(manifest.routes.map(\.request.rawValue))
            unmatchedGuardPatterns = UnmatchedGuardPattern.find(in: manifest, routed: routed, plugins: probes)
            unroutedDeepLinkSteps = UnroutedDeepLinkStep.find(in: manifest, routed: routed, plugins: probes)
        } else {
            let registry = PluginRegistry(
                manifest: manifest, searchPath: searchPath, allowInsecurePlugins: allowInsecurePlugins)
            pluginErrors = Host.check(manifest: manifest, registry: registry)
            contextConflicts = ContextKeyConflict.conflicts(among: manifest.services) { name in
                guard case .loaded(let plugin)? = registry.status(of: name) else { return nil }
                return ProbedPlugin(plugin).contextKeys
            }
            var loaded: [String: ProbedPlugin] = [:]
            for name in manifest.plugins.keys {
                if case .loaded(let plugin)? = registry.status(of: name) { loaded[name] = ProbedPlugin(plugin) }
            }
            requestTypos = RequestTypo.find(in: manifest, routes: manifest.routes, plugins: loaded)
            unroutedSends = UnroutedSend.find(routes: manifest.routes, plugins: loaded, typos: requestTypos)
            unusedDeclarations = UnusedDeclarations.find(in: manifest, plugins: loaded)
            let routed = Set(manifest.routes.map(\.request.rawValue))
            unmatchedGuardPatterns = UnmatchedGuardPattern.find(in: manifest, routed: routed, plugins: loaded)
            unroutedDeepLinkSteps = UnroutedDeepLinkStep.find(in: manifest, routed: routed, plugins: loaded)
        }
        pluginErrors = Self.placingLibrariesThatAreNoPlugins(
            Self.placingMissingPaths(pluginErrors, of: manifest), of: manifest, searchPath: searchPath)
    }

    /// `errors` with each library of a `plugins` entry that is a path to no file, or a file name found in no
    /// directory searched, said at its place in the manifest, as a name a plugin does not export is: the entry
    /// is the manifest's mistake (`app.json: plugins.trip: library /app/libTrp.so not found; did you mean
    /// libTrip.so?`, `app.json: plugins.trip: library libTrp.so not found (searched: ...); did you mean
    /// libTrip.so?`).
    static func placingMissingPaths(_ errors: [PluginLoadError], of manifest: Manifest) -> [PluginLoadError] {
        let paths = manifest.plugins.map { name, entry in
            let library = entry.library
            return (
                name, library.contains("/") ? Manifest.normalisedPath(library, relativeTo: manifest.directory) : library
            )
        }
        return errors.map { error in
            // The entry of that path whose plugin the error names: two entries may list the same library.
            guard error.kind == .notFound, error.place == nil,
                let (name, path) = paths.first(where: {
                    $0.1 == error.file && error.message.hasPrefix("library of plugin '\($0.0)' not found")
                })
            else { return error }
            let what = "library of plugin '\(name)' not found"
            return PluginLoadError(
                file: manifest.path, kind: .notFound,
                message: "library \(path) not found" + error.message.dropFirst(what.count), place: "plugins.\(name)")
        }
    }

    /// `errors` with each file that is no plugin library said at the place of each `plugins` entry that names
    /// it, as a library not found is: the entry names a library with no entry point, not one yet
    /// (``PluginLoadError/Kind/missingEntry``), a file that is not ELF (``PluginLoadError/Kind/notELF``) or a
    /// program (``PluginLoadError/Kind/notSharedObject``). The line keeps the file's path (`app.json:
    /// plugins.plain: /app/lib/libPlain.so: has no entry point ...`). A plugin that fails otherwise (a crash, a
    /// FlowKit it was not built against) is its library's problem, said by the library alone.
    static func placingLibrariesThatAreNoPlugins(
        _ errors: [PluginLoadError], of manifest: Manifest, searchPath: PluginSearchPath
    ) -> [PluginLoadError] {
        let kinds: Set<PluginLoadError.Kind> = [.missingEntry, .notELF, .notSharedObject]
        guard errors.contains(where: { kinds.contains($0.kind) && $0.place == nil }) else { return errors }
        let located = manifest.plugins.keys.sorted().compactMap { name in
            manifest.plugins[name].flatMap { entry in
                (try? searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: name)).map { (name, $0) }
            }
        }
        return errors.flatMap { error in
            // Each entry that names it: two entries may list the same library, whose error is said once.
            let names = located.filter { $0.1 == error.file }.map(\.0)
            guard kinds.contains(error.kind), error.place == nil, !names.isEmpty else { return [error] }
            return names.map {
                PluginLoadError(
                    file: manifest.path, kind: error.kind, message: "\(error.file): \(error.message)",
                    place: "plugins.\($0)")
            }
        }
    }

    /// Whether nothing is wrong.
    package var isValid: Bool { manifestErrors.isEmpty && pluginErrors.isEmpty }

    /// Whether an input is missing rather than invalid: the manifest file, or every plugin for want of a
    /// build.
    package var isMissingInput: Bool {
        pluginsNotBuilt || manifestErrors.contains { $0.kind == .fileNotFound }
    }

    /// How many warnings there are (notes aside), which leave the manifest valid unless `validate --strict`
    /// counts them as problems.
    package var warningCount: Int {
        contextConflicts.count + (composition?.discoveryWarnings(file: file).count ?? 0) + requestTypos.count
            + unmatchedGuardPatterns.count + unroutedDeepLinkSteps.count + creatablePluginDirectories.count
    }

    /// How many problems there are: those ``problems`` lists, and the manifest's it leaves out.
    package var problemCount: Int {
        let unread = composition?.unreadDirectories ?? []
        return unread.count + manifestErrors.count + omittedManifestErrors
            + pluginErrors.filter { !unread.contains($0) }.count
    }

    /// Every problem as a one-line description: the discovered directories that cannot be read first, as the
    /// cause of what follows from them (a start request no route handles when its plugin's directory is
    /// misspelt), then the manifest's, then the plugins'.
    package var problems: [String] { problems(describing: \.description) }

    /// Every problem as a one-line description, in the order of ``problems``, each of the manifest's as
    /// `describe` says it: the command line says a missing manifest as its own error about its argument.
    ///
    /// - Parameter describe: The line for one of the manifest's problems.
    /// - Returns: The lines, one a problem, then the line that counts the manifest's problems left out.
    package func problems(describing describe: (ManifestError) -> String) -> [String] {
        let omitted = ManifestErrors(manifestErrors, omitted: omittedManifestErrors).omittedLine
        let unread = composition?.unreadDirectories ?? []
        return unread.map(\.description) + manifestErrors.map(describe) + (omitted.map { [$0] } ?? [])
            + pluginErrors.filter { !unread.contains($0) }.map(\.description)
    }
}
