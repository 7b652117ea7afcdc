import FlowKit
import PluginLoading

extension JSONDocument {
    /// `inspect --json` for a plugin a probe described: the same shape as for a loaded one,
    /// `{"errors": [], "library", "plugin": {"name", "version", "flowKit": "1.0", "hostFlowKit": "1.0", "managers", "services"}}`,
    /// with `problems`, its declarations that name what it does not export (``ProbedPlugin/inconsistencies``), as
    /// `errors`.
    package static func plugin(_ plugin: ProbedPlugin, problems: [PluginLoadError] = []) -> JSONValue {
        var details = plugin.json.object ?? [:]
        details["hostFlowKit"] = .string(FlowKitVersion.current.description)
        return ["library": .string(plugin.path), "plugin": .object(details), "errors": .array(problems.map(\.json))]
    }

    /// `quarantine list --json`: `{"errors": [], "quarantine": [{"library", "entryPoint", "kind", "reason",
    /// "since", "current"}]}`, `entryPoint` null for a whole library (else `manager Trap`, `action fragile
    /// trap`, `service Clock`), `current` false for an entry whose file has changed since (and no longer
    /// refuses it).
    package static func quarantine(_ entries: [PluginQuarantine.Entry]) -> JSONValue {
        let list = entries.map { entry -> JSONValue in
            [
                "library": .string(entry.library), "entryPoint": entry.entryPoint.map { .string($0.key) } ?? .null,
                "kind": .string(entry.kind.rawValue),
                "reason": .string(entry.reason),
                "since": .number(Double(entry.since)), "current": .bool(entry.isCurrent),
            ]
        }
        return ["quarantine": .array(list), "errors": []]
    }
}
