import FlowKit

/// The documents `flowhost validate|list|inspect --json` print: one JSON object per run, success or
/// failure, always with an `errors` array of `{"file", "kind", "message", "path"}` objects (see
/// ``ManifestError/json`` and ``PluginLoadError/json``). manifests/README.md documents each shape.
public enum JSONDocument {
    /// `validate --json`:
    /// `{"errors", "manifest", "valid", "plugins", "routes", "services"}`, the counts `null` when the
    /// manifest could not be read.
    public static func validation(_ report: ValidationReport) -> JSONValue {
        func count(_ count: Int?) -> JSONValue { count.map { .number(Double($0)) } ?? .null }
        return [
            "manifest": .string(report.file),
            "valid": .bool(report.isValid),
            "plugins": count(report.manifest?.plugins.count),
            "routes": count(report.manifest?.routes.count),
            "services": count(report.manifest?.services.count),
            "errors": .array(
                ManifestErrors.json(report.manifestErrors, omitted: report.omittedManifestErrors)
                    + report.pluginErrors.map(\.json)),
        ]
    }

    /// `list --json`: `{"errors": [], "manifest", "routes": [ROUTE...]}`, each route
    /// `{"request", "from", "plugin", "manager", "experiment", "library", "status", "error"}`.
    public static func routes(_ table: RoutingTable) -> JSONValue {
        let routes = table.entries.map { entry -> JSONValue in
            var error = JSONValue.null
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
                "library": .string(entry.library), "status": .string(entry.probed ? "loaded" : entry.status.name),
                "error": error,
            ]
        }
        return ["manifest": .string(table.manifest), "routes": .array(routes), "errors": []]
    }

    /// `list --json` for a manifest that could not be read: `routes` is `null`; `omitted` counts the
    /// errors past the ones listed.
    public static func routes(manifest: String, errors: [ManifestError], omitted: Int = 0) -> JSONValue {
        [
            "manifest": .string(manifest), "routes": .null,
            "errors": .array(ManifestErrors.json(errors, omitted: omitted)),
        ]
    }

    /// `inspect --json`: `{"errors": [], "library", "plugin": {"name", "version", "abi", "hostABI",
    /// "managers": [{"name", "requires"}], "services"}}`.
    @MainActor
    public static func plugin(_ plugin: LoadedPlugin) -> JSONValue {
        let description = plugin.description
        let managers = description.managers.sorted { $0.name < $1.name }.map { factory -> JSONValue in
            let requirements = (try? factory.resolve().requirements) ?? []
            return ["name": .string(factory.name), "requires": .array(requirements.map { .string($0.rawValue) })]
        }
        let details: JSONValue = [
            "name": .string(description.name), "version": .string(description.version),
            "abi": .number(Double(plugin.abiVersion)), "hostABI": .number(Double(PluginEntry.abiVersion)),
            "managers": .array(managers),
            "services": .array(description.services.map(\.name).sorted().map(JSONValue.string)),
        ]
        return ["library": .string(plugin.path), "plugin": details, "errors": []]
    }

    /// `inspect --json` for a library that could not be loaded: `plugin` is `null`.
    public static func plugin(library: String, error: PluginLoadError) -> JSONValue {
        ["library": .string(library), "plugin": .null, "errors": [error.json]]
    }

    /// Any `--json` command whose command line is wrong (exit 64): only `errors`, one of kind `usage`.
    public static func usage(_ message: String) -> JSONValue {
        ["errors": [["file": .null, "kind": "usage", "message": .string(message), "path": .null]]]
    }
}
