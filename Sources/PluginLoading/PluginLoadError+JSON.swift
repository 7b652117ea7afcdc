import FlowKit

extension PluginLoadError {
    /// `{"file", "kind", "message", "path": null}`: the error as `--json` output reports it, in the shape of a
    /// ``ManifestError``'s so that every error in a document reads the same way.
    package var json: JSONValue {
        ["file": .string(file), "kind": .string(kind.rawValue), "message": .string(message), "path": .null]
    }
}
