import FlowComposition
import FlowKit
import FlowManifest
import PluginLoading

/// The documents `flowhost validate|list|inspect --json` print: one JSON object per run, success or
/// failure, always with an `errors` array of `{"file", "kind", "message", "path"}` objects (see
/// ``ManifestError/json`` and ``PluginLoadError/json``). manifests/README.md documents each shape.
package enum JSONDocument {
    /// `validate --json`:
    /// `{"errors", "warnings", "manifest", "valid", "plugins", "routes", "services", "guards": [{"name",
    /// "declaredBy", "refuses", "conflict"}], "deepLinks": [{"pattern", "declaredBy", "fromRoot"}]}`, the counts and lists
    /// `null` when the manifest could not be read; for a manifest that discovers plugins, those of what it
    /// composes to, `declaredBy` saying `manifest` or the plugin, and the guards in conflict first
    /// (``refusing(_:by:)``). A warning (`{"kind": "contextConflict", "key", "winner",
    /// "shadowed", "message"}`) leaves it valid, unless `warningsFail` (`validate --strict` with a warning);
    /// `fileWarnings`, about the files the command line names (a manifest others can change, a
    /// `--plugin-path` that is not there), come first.
    package static func validation(
        _ report: ValidationReport, fileWarnings: [(kind: String, message: String)] = [], warningsFail: Bool = false
    ) -> JSONValue {
        func count(_ count: Int?) -> JSONValue { count.map { .number(Double($0)) } ?? .null }
        let manifest = report.composition?.manifest ?? report.manifest
        let source = { (source: PluginComposition.Source?) in JSONValue.string((source ?? .manifest).description) }
        let guards = manifest.map { manifest in
            JSONValue.array(
                (report.composition?.conflictingGuards ?? []).map {
                    JSONValue.object(refusing($0.name, by: $0.plugins))
                }
                    + manifest.guards.map {
                        [
                            "name": .string($0.name), "declaredBy": source(report.composition?.guardSources[$0.name]),
                            "refuses": false, "conflict": .null,
                        ]
                    })
        }
        let deepLinks = manifest.map { manifest in
            JSONValue.array(
                manifest.deepLinks.routes.map {
                    let pattern = $0.pattern.description
                    return [
                        "pattern": .string(pattern), "declaredBy": source(report.composition?.deepLinkSources[pattern]),
                        "fromRoot": .bool($0.fromRoot),
                    ]
                })
        }
        return [
            "guards": guards ?? .null, "deepLinks": deepLinks ?? .null,
            "manifest": .string(report.file),
            "valid": .bool(report.isValid && !warningsFail),
            "plugins": count(manifest?.plugins.count),
            "routes": count(manifest?.routes.count),
            "services": count(manifest?.services.count),
            "errors": .array(
                ManifestErrors.json(report.manifestErrors, omitted: report.omittedManifestErrors)
                    + report.pluginErrors.map(\.json)),
            "warnings": .array(
                fileWarnings.map { ["kind": .string($0.kind), "message": .string($0.message)] }
                    + (report.composition?.emptyDirectories ?? []).map { empty in
                        [
                            "kind": "emptyDiscoveredDirectory", "path": .string("discover[\(empty.index)]"),
                            "directory": .string(empty.directory), "message": .string(empty.message),
                        ]
                    }
                    + (report.composition?.unmatchedLibraries ?? []).map { unmatched in
                        [
                            "kind": "unmatchedLibrary", "path": .string(unmatched.path),
                            "name": .string(unmatched.name),
                            "directories": .array(unmatched.directories.map(JSONValue.string)),
                            "suggestion": unmatched.suggestion.map(JSONValue.string) ?? .null,
                            "message": .string(unmatched.message),
                        ]
                    }
                    + report.contextConflicts.map { conflict in
                        [
                            "kind": "contextConflict", "key": .string(conflict.key), "winner": .string(conflict.winner),
                            "shadowed": .array(conflict.shadowed.map(JSONValue.string)),
                            "message": .string(conflict.description),
                        ]
                    }
                    + report.requestTypos.map { typo in
                        [
                            "kind": "requestTypo", "file": .string(typo.file),
                            "path": typo.place.map(JSONValue.string) ?? .null,
                            "request": .string(typo.request), "suggestion": .string(typo.nearest),
                            "message": .string(typo.message),
                        ]
                    }
                    + report.unmatchedGuardPatterns.map { unmatched in
                        [
                            "kind": "unmatchedGuardPattern", "file": .string(unmatched.file),
                            "path": unmatched.place.map(JSONValue.string) ?? .null,
                            "plugin": unmatched.plugin.map(JSONValue.string) ?? .null,
                            "guard": .string(unmatched.guardName), "pattern": .string(unmatched.pattern),
                            "suggestion": unmatched.suggestion.map(JSONValue.string) ?? .null,
                            "message": .string(unmatched.message),
                        ]
                    }
                    + report.unroutedDeepLinkSteps.map { step in
                        [
                            "kind": "unroutedDeepLinkStep", "file": .string(step.file),
                            "path": step.place.map(JSONValue.string) ?? .null,
                            "plugin": step.plugin.map(JSONValue.string) ?? .null,
                            "pattern": .string(step.pattern), "request": .string(step.request),
                            "suggestion": step.suggestion.map(JSONValue.string) ?? .null,
                            "message": .string(step.message),
                        ]
                    }
                    + report.creatablePluginDirectories.map { creatable in
                        [
                            "kind": "creatablePluginDirectory", "file": .string(creatable.file),
                            "path": .string(creatable.place), "directory": .string(creatable.directory),
                            "message": .string(creatable.message),
                        ]
                    }
                    + report.unusedDeclarations.map { unused in
                        [
                            "kind": "declarationsNotInEffect", "plugin": .string(unused.plugin),
                            "message": .string(unused.description),
                        ]
                    }
                    + report.unroutedSends.map { unrouted in
                        [
                            "kind": "unroutedRequest", "plugin": .string(unrouted.plugin),
                            "module": .string(unrouted.module), "request": .string(unrouted.request),
                            "action": unrouted.action.map(JSONValue.string) ?? .null,
                            "message": .string(unrouted.description),
                        ]
                    }),
        ]
    }

    /// `list --json`: `{"errors": [], "manifest", "routes": [ROUTE...], "services": [{"name", "declaredBy"}],
    /// "guards": [{"name", "summary", "declaredBy", "refuses", "conflict"}], "deepLinks": [{"pattern", "summary",
    /// "declaredBy"}], "discovery"}`, the services in start order, each route
    /// `{"request", "from", "plugin", "manager", "experiment", "declaredBy", "library", "status", "error"}`;
    /// `discovery` is `null` for a manifest that discovers nothing (see ``discovery(_:)``).
    package static func routes(_ table: RoutingTable) -> JSONValue {
        let routes = table.entries.map { entry -> JSONValue in
            var error = entry.quarantine?.json ?? .null
            if case .failed(let failure) = entry.status { error = failure.json }
            let experiment: JSONValue =
                entry.arm.map {
                    [
                        "name": .string($0.experiment), "variant": .string($0.variant),
                        "weight": .number(Double($0.weight)),
                    ]
                } ?? .null
            return [
                "request": .string(entry.request), "from": entry.from.map(JSONValue.string) ?? .null,
                "plugin": .string(entry.plugin), "manager": .string(entry.manager), "experiment": experiment,
                "declaredBy": .string(entry.declaredBy.description),
                "library": .string(entry.library), "status": .string(entry.probed ? "loaded" : entry.status.name),
                "error": error,
            ]
        }
        return [
            "manifest": .string(table.manifest), "routes": .array(routes),
            "services": .array(
                table.services.map {
                    ["name": .string($0.key), "declaredBy": .string($0.declaredBy.description)]
                }),
            "guards": .array(
                table.guards.map { declaration -> JSONValue in
                    guard declaration.conflict.isEmpty else {
                        var guarded = refusing(declaration.key, by: declaration.conflict)
                        guarded["summary"] = .string(declaration.summary)
                        return .object(guarded)
                    }
                    return [
                        "name": .string(declaration.key), "summary": .string(declaration.summary),
                        "declaredBy": .string(declaration.declaredBy.description), "refuses": false, "conflict": .null,
                    ]
                }),
            "deepLinks": .array(
                table.deepLinks.map {
                    [
                        "pattern": .string($0.key), "summary": .string($0.summary),
                        "declaredBy": .string($0.declaredBy.description),
                    ]
                }),
            "discovery": table.composition.map(discovery) ?? .null,
            "errors": .array(ManifestErrors.json(table.composition?.composedManifestErrors ?? [], omitted: 0)),
        ]
    }

    /// A guard `plugins` declare differently, which refuses the requests any of them would guard
    /// (``FlowComposition/ConflictingGuard``), as `validate --json` and `list --json` list it among the
    /// guards: `{"name", "declaredBy": "catalog, express", "refuses": true, "conflict": {"plugins":
    /// ["catalog", "express"]}}`. `declaredBy` names the plugins as a declaration set aside's `by` does; a
    /// guard in force has `"refuses": false` and `"conflict": null`.
    static func refusing(_ name: String, by plugins: [String]) -> [String: JSONValue] {
        [
            "name": .string(name), "declaredBy": .string(plugins.joined(separator: ", ")), "refuses": true,
            "conflict": ["plugins": .array(plugins.map(JSONValue.string))],
        ]
    }

    /// What discovery found: `{"directories", "plugins": [{"name", "version", "library", "directory",
    /// "state", "reason"}], "setAside": [{"request", "from", "plugin", "manager", "reason", "by",
    /// "message"}], "declarationsSetAside": [{"kind", "key", "plugin", "reason", "by", "message"}],
    /// "notPlugins": [ERROR...], "problems": [ERROR...]}`. A plugin's `state` is `active`,
    /// `refused`, `excluded`, `overridden` or `removed`; a set-aside route's `reason` is `overridden`,
    /// `excluded`, `notPreferred`, `conflict`, `refused` or `removed`, `by` the manifest place or plugin
    /// that decided it.
    package static func discovery(_ composition: PluginComposition) -> JSONValue {
        let plugins = composition.plugins.map { plugin -> JSONValue in
            let (state, reason): (String, String?) =
                switch plugin.state {
                case .active: ("active", nil)
                case .refused(let error): ("refused", error.message)
                case .excluded(let place): ("excluded", place)
                case .overridden(let other): ("overridden", other)
                case .removed: ("removed", nil)
                }
            return [
                "name": .string(plugin.name), "version": plugin.probe.map { .string($0.version) } ?? .null,
                "library": .string(plugin.library), "directory": plugin.directory.map(JSONValue.string) ?? .null,
                "state": .string(state), "reason": reason.map(JSONValue.string) ?? .null,
            ]
        }
        func reason(_ reason: PluginComposition.SetAside.Reason) -> (name: String, by: String?) {
            switch reason {
            case .overridden(let place): ("overridden", place)
            case .excluded(let place): ("excluded", place)
            case .notPreferred(let place, _): ("notPreferred", place)
            case .conflict(let others): ("conflict", others.joined(separator: ", "))
            case .refused: ("refused", nil)
            case .removed: ("removed", nil)
            }
        }
        let setAside = composition.setAside.map { aside -> JSONValue in
            let (reason, by) = reason(aside.reason)
            return [
                "request": .string(aside.key.request.rawValue),
                "from": aside.key.module.map { .string($0.rawValue) } ?? .null, "plugin": .string(aside.plugin),
                "manager": .string(aside.manager), "reason": .string(reason), "by": by.map(JSONValue.string) ?? .null,
                "message": .string(aside.reason.description),
            ]
        }
        return [
            "directories": .array(composition.directories.map(JSONValue.string)), "plugins": .array(plugins),
            "setAside": .array(setAside),
            "declarationsSetAside": .array(
                composition.declarationsSetAside.map { aside in
                    let (name, by) = reason(aside.reason)
                    return [
                        "kind": .string(aside.kind == .guard ? "guard" : "deepLink"), "key": .string(aside.key),
                        "plugin": .string(aside.plugin), "reason": .string(name),
                        "by": by.map(JSONValue.string) ?? .null, "message": .string(aside.reason.description),
                    ]
                }),
            "notPlugins": .array(composition.skipped.map(\.json)),
            "problems": .array(composition.problems.map(\.json)),
        ]
    }

    /// `list --json` for a manifest that could not be read: `routes` is `null`; `omitted` counts the
    /// errors past the ones listed.
    package static func routes(manifest: String, errors: [ManifestError], omitted: Int = 0) -> JSONValue {
        [
            "manifest": .string(manifest), "routes": .null,
            "errors": .array(ManifestErrors.json(errors, omitted: omitted)),
        ]
    }

    /// `inspect --json`: `{"errors": [], "library", "plugin": {"name", "version", "flowKit", "hostFlowKit",
    /// "managers": [{"name", "requires"}], "services", "routes", "startServices", "requires"}}` (see
    /// ``ProbedPlugin/json``).
    @MainActor
    package static func plugin(_ plugin: LoadedPlugin) -> JSONValue {
        Self.plugin(ProbedPlugin(plugin))
    }

    /// `inspect --json` for a library that could not be loaded: `plugin` is `null`.
    package static func plugin(library: String, error: PluginLoadError) -> JSONValue {
        ["library": .string(library), "plugin": .null, "errors": [error.json]]
    }

    /// Any `--json` command whose command line is wrong (exit 64): only `errors`, one of kind `usage`.
    package static func usage(_ message: String) -> JSONValue {
        ["errors": [["file": .null, "kind": "usage", "message": .string(message), "path": .null]]]
    }
}
