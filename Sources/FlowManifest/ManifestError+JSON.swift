import FlowKit
import HostSupport

extension ManifestError {
    /// `{"file", "kind", "message", "path"}`: the error as `--json` output reports it; `path` is `null` for
    /// a problem with the whole file.
    package var json: JSONValue {
        [
            "file": .string(file), "kind": .string(kind.rawValue), "message": .string(message),
            "path": path.map(JSONValue.string) ?? .null,
        ]
    }
}

extension ManifestErrors {
    /// `errors` as `--json` output reports them; a list cut short ends with an error of kind `omitted`,
    /// `{"file", "kind": "omitted", "message": "and N more problems", "path": null}`.
    package static func json(_ errors: [ManifestError], omitted: Int) -> [JSONValue] {
        guard omitted > 0, let file = errors.first?.file else { return errors.map(\.json) }
        let message = "and \(counted(omitted, "more problem"))"
        return errors.map(\.json) + [
            ["file": .string(file), "kind": "omitted", "message": .string(message), "path": .null]
        ]
    }
}
