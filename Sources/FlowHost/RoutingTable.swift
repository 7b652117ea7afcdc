import FlowComposition
import FlowKit
import FlowManifest
import PluginLoading

/// The manifest's routes as `flowhost list` shows them: one entry per route, or per variant of the
/// experiment a route points to, with who declared it (the manifest or a discovered plugin), the library
/// that serves it and whether that library is loaded; then, for a manifest that discovers plugins, what
/// was set aside (``PluginComposition``).
package struct RoutingTable: Sendable {
    /// One row: a request, from any module or one, to one manager.
    package struct Entry: Sendable {
        /// The experiment arm a row stands for, when its route points to an experiment.
        package struct Arm: Sendable, Hashable {
            package var experiment: String
            package var variant: String
            package var weight: Int
        }

        package var request: String
        /// The sending module the route is limited to; `nil` for any module.
        package var from: String?
        package var plugin: String
        package var manager: String
        package var arm: Arm?
        /// The library file: where it was loaded or would be found, else as the manifest writes it.
        package var library: String
        package var status: PluginRegistry.Status
        /// Whether a probe in a child process loaded the plugin (``PluginSurvey``), which `status` then
        /// does not show: it is ``PluginRegistry/Status/notLoaded`` in this process.
        package var probed = false
        /// Who made the route: the manifest, or the plugin that declared it.
        package var declaredBy = PluginComposition.Source.manifest
        /// Why every run refuses the route's manager, when a supervised run quarantined it (`--eager`).
        package var quarantine: PluginLoadError?
    }

    /// The manifest file, as given.
    package var manifest: String
    /// The rows, in manifest order; an experiment's variants in their order.
    package var entries: [Entry]
    /// A guard or deep link in force, and who declared it.
    package struct Declaration: Sendable {
        /// The guard's name, or the deep link's pattern.
        package var key: String
        /// What it does: `catalog.* unless context user: redirect to auth.signIn`, or the requests a deep
        /// link opens.
        package var summary: String
        package var declaredBy: PluginComposition.Source
        /// For a guard plugins declare differently (``FlowComposition/ConflictingGuard``): those plugins, in
        /// load order. It refuses the requests it matches, and `declaredBy` says nothing then. Empty otherwise.
        package var conflict: [String] = []
    }

    /// The guards the host installs, in the order it consults them: those in conflict, which refuse what
    /// they match, then those in force.
    package var guards: [Declaration]
    /// The deep links in force, in order.
    package var deepLinks: [Declaration]
    /// The services the host starts, in the order it starts them (`plugin.Service`, no summary).
    package var services: [Declaration]
    /// What discovery found and set aside, for a manifest that discovers plugins (and then the registry's
    /// manifest is its ``PluginComposition/manifest``); `nil` otherwise.
    package var composition: PluginComposition?
    /// The routes' managers and services that a supervised run quarantined, as `--eager` probes found them
    /// (``PluginSurvey/quarantinedReferences``), each refusal as `validate` says it.
    package var quarantined: [String] = []

    /// The table for `registry`'s manifest, with each plugin's state in `registry` now, or as `survey`'s
    /// probes found it.
    ///
    /// - Parameter composition: For a manifest that discovers plugins, what discovery made of it: the
    ///   registry must be for its ``PluginComposition/manifest``.
    @MainActor
    package init(registry: PluginRegistry, survey: PluginSurvey? = nil, composition: PluginComposition? = nil) {
        let manifest = registry.manifest
        self.manifest = manifest.path
        self.composition = composition
        quarantined = PluginLoadError.unique(survey?.quarantinedReferences ?? []).map(\.description)
        func entry(_ route: Manifest.Route, _ plugin: String, _ manager: String, _ arm: Entry.Arm?) -> Entry {
            var entry = Entry(
                request: route.request.rawValue, from: route.module?.rawValue, plugin: plugin, manager: manager,
                arm: arm, library: registry.library(of: plugin) ?? "?",
                status: registry.status(of: plugin) ?? .notLoaded)
            entry.declaredBy =
                composition?.sources[PluginComposition.RouteKey(route.request, from: route.module)] ?? .manifest
            switch survey?.results[plugin] {
            case .success(let probed):
                entry.probed = true
                entry.library = probed.path
                entry.quarantine = survey?.refusal(of: .manager(manager), of: plugin)
            case .failure(let error): entry.status = .failed(error)
            case nil: break
            }
            return entry
        }
        let refusing = (composition?.conflictingGuards ?? []).map { conflicting in
            Declaration(
                key: conflicting.name, summary: conflicting.description, declaredBy: .manifest,
                conflict: conflicting.plugins)
        }
        guards =
            refusing
            + manifest.guards.map { guarded in
                Declaration(
                    key: guarded.name, summary: guarded.description,
                    declaredBy: composition?.guardSources[guarded.name] ?? .manifest)
            }
        deepLinks = manifest.deepLinks.routes.map { link in
            Declaration(
                key: link.pattern.description,
                summary: link.steps.map(\.name.rawValue).joined(separator: ", ")
                    + (link.fromRoot ? ", from the root" : ""),
                declaredBy: composition?.deepLinkSources[link.pattern.description] ?? .manifest)
        }
        // A service the declared manifest does not start is one its plugin declares it starts.
        let declaredServices = Set(composition?.declared.services ?? manifest.services)
        services = manifest.services.map { service in
            Declaration(
                key: service.reportedName, summary: "",
                declaredBy: declaredServices.contains(service) ? .manifest : .plugin(service.plugin))
        }
        entries = manifest.routes.flatMap { route -> [Entry] in
            switch route.target {
            case .manager(let plugin, let manager):
                return [entry(route, plugin, manager, nil)]
            case .experiment(let name):
                return (manifest.experiments[name]?.variants ?? []).map { variant in
                    entry(
                        route, variant.plugin, variant.manager,
                        Entry.Arm(experiment: name, variant: variant.name, weight: variant.weight))
                }
            }
        }
    }

    /// What `validate` reports as errors and the table only hints at, one line each, as `validate` prints
    /// them: for a manifest that discovers plugins, the discovered directories it could not read (the cause of
    /// much that follows), its start requests, deep links' first steps and guard redirects that no composed
    /// route handles (``PluginComposition/composedManifestErrors``), then every other problem discovery found
    /// (a library it cannot probe, a conflict, an unmet requirement); then the ``quarantined`` managers and
    /// services. `list` prints them on standard error.
    package var errors: [String] {
        guard let composition else { return quarantined }
        let unread = composition.unreadDirectories
        return unread.map(\.description) + composition.composedManifestErrors.map(\.description)
            + composition.problems.filter { !unread.contains($0) }.map(\.description) + quarantined
    }

    /// Whether `list` exits 65, as `validate` would: there are ``errors``, or a plugin failed to load (the
    /// `--eager` probes'), which ``failureLines`` say.
    package var isValid: Bool {
        errors.isEmpty
            && !entries.contains { entry in
                if case .failed = entry.status { true } else { false }
            }
    }

    /// The table as text cells, a header row first: REQUEST, FROM, PLUGIN, MANAGER, DECLARED BY (`manifest`
    /// or a plugin's name), LIBRARY, LOADED.
    package var rows: [[String]] {
        [["REQUEST", "FROM", "PLUGIN", "MANAGER", "DECLARED BY", "LIBRARY", "LOADED"]]
            + entries.map { entry in
                let loaded: String =
                    switch entry.status {
                    case .loaded: "yes"
                    case .failed: "failed"
                    case .notLoaded: entry.probed ? "yes" : "no"
                    }
                let manager = entry.arm.map { "\(entry.manager) [\($0.experiment):\($0.variant) w\($0.weight)]" }
                return [
                    entry.request, entry.from ?? "*", entry.plugin, manager ?? entry.manager,
                    entry.declaredBy.description, entry.library, loaded,
                ]
            }
    }

    /// Why each plugin that failed to load did, as lines for people under the table, a plugin once:
    /// `  g: libNope.so: library of plugin 'g' not found (...)`.
    package var failureLines: [String] {
        var seen = Set<String>()
        let failures = entries.compactMap { entry -> String? in
            guard case .failed(let error) = entry.status, seen.insert(entry.plugin).inserted else { return nil }
            return "  \(entry.plugin): \(error.description)"
        }
        return failures.isEmpty ? [] : ["plugins that do not load:"] + failures
    }

    /// `'a', 'b'`: plugin names quoted, in order.
    private static func names(_ plugins: [String]) -> String {
        plugins.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// The services, guards and deep links, as lines for people under the table, each with who declared it:
    /// `  auth.Session (declared by manifest)`, in the order they start; `  signedIn: catalog.* unless context
    /// user: redirect to auth.signIn (declared by catalog)`; a guard in conflict with what it refuses and the
    /// plugins: `  signedIn: catalog.*, express.*: refused (declared differently by plugins 'catalog',
    /// 'express')`.
    package var declarationLines: [String] {
        var lines: [String] = []
        let sections = [("services, in start order:", services), ("guards:", guards), ("deep links:", deepLinks)]
        for (title, declarations) in sections where !declarations.isEmpty {
            lines.append(title)
            lines += declarations.map { declaration in
                let by =
                    declaration.conflict.isEmpty
                    ? "declared by \(declaration.declaredBy)"
                    : "declared differently by plugins \(Self.names(declaration.conflict))"
                let summary = declaration.summary.isEmpty ? "" : ": \(declaration.summary)"
                return "  \(declaration.key)\(summary) (\(by))"
            }
        }
        return lines
    }

    /// What discovery set aside, as lines for people under the table: declared routes not routed as
    /// declared (overridden, excluded, not preferred, in conflict, of a refused or removed plugin), declared
    /// guards and deep links not taken, plugins not used and why, and files of the discovered directories
    /// that are not plugins. Empty without discovery.
    package var notes: [String] {
        guard let composition else { return [] }
        var lines: [String] = []
        if !composition.setAside.isEmpty {
            lines.append("declared routes set aside:")
            // A conflict is one line, at its first plugin's entry, naming them all: not one line per plugin.
            var saidConflicts = Set<PluginComposition.RouteKey>()
            for aside in composition.setAside {
                guard case .conflict = aside.reason else {
                    lines.append(
                        "  \(aside.key.shellName) -> \(aside.plugin).\(aside.manager), declared by \(aside.plugin): \(aside.reason)"
                    )
                    continue
                }
                guard saidConflicts.insert(aside.key).inserted else { continue }
                let conflicting = composition.setAside.filter { entry in
                    guard entry.key == aside.key, case .conflict = entry.reason else { return false }
                    return true
                }
                let targets = conflicting.map { "\($0.plugin).\($0.manager)" }.joined(separator: ", ")
                lines.append(
                    "  \(aside.key.shellName) -> \(targets), declared by plugins \(Self.names(conflicting.map(\.plugin))): in conflict; the route fails until the manifest picks one"
                )
            }
        }
        if !composition.declarationsSetAside.isEmpty {
            lines.append("declared guards and deep links set aside:")
            var saidConflicts = Set<String>()
            for aside in composition.declarationsSetAside {
                guard case .conflict(let others) = aside.reason else {
                    lines.append("  \(aside.kind) \(aside.key), declared by \(aside.plugin): \(aside.reason)")
                    continue
                }
                guard saidConflicts.insert("\(aside.kind) \(aside.key)").inserted else { continue }
                let outcome =
                    aside.kind == .guard
                    ? "the requests they guard are refused" : "none is taken"
                lines.append(
                    "  \(aside.kind) \(aside.key), declared differently by plugins \(Self.names([aside.plugin] + others)): in conflict; \(outcome) until the manifest settles it"
                )
            }
        }
        let unused = composition.plugins.filter { !$0.isActive }
        if !unused.isEmpty {
            lines.append("plugins not used:")
            for plugin in unused {
                let why: String =
                    switch plugin.state {
                    case .active: "active"
                    case .refused(let error): "refused: \(error.message)"
                    case .excluded(let place): "excluded by \(place)"
                    case .overridden(let other): "overridden by \(other)"
                    case .removed: "removed while flowhost ran"
                    }
                lines.append("  \(plugin.name) (\(plugin.library)): \(why)")
            }
        }
        if !composition.broken.isEmpty {
            lines.append("libraries not loaded:")
            lines += composition.broken.map { "  \($0)" }
        }
        // Found beside the plugins (libFlowKit.so, a test bundle): nothing to fix in them, so no advice to add
        // an entry point, only how to leave them alone.
        if !composition.skipped.isEmpty {
            lines.append(
                "not plugins, passed over (no entry point 'flowkit_plugin_entry'; a discovered directory's \"libraries\" names the ones to read):"
            )
            lines += composition.skipped.map { "  \($0.file)" }
        }
        return lines
    }
}
