import FlowKit

extension PluginLoadError {
    /// `{"file", "kind", "message", "path"}`: the error as `--json` output reports it, in the shape of a
    /// ``ManifestError``'s so that every error in a document reads the same way; `path` is its ``place`` in
    /// a manifest, `null` for an error of the library.
    package var json: JSONValue {
        [
            "file": .string(file), "kind": .string(kind.rawValue), "message": .string(message),
            "path": place.map(JSONValue.string) ?? .null,
        ]
    }
}
