import FlowKit

extension ManifestError {
    /// `{"file", "kind", "message", "path"}`: the error as `--json` output reports it; `path` is `null` for
    /// a problem with the whole file.
    public var json: JSONValue {
        [
            "file": .string(file), "kind": .string(kind.rawValue), "message": .string(message),
            "path": path.map(JSONValue.string) ?? .null,
        ]
    }
}
