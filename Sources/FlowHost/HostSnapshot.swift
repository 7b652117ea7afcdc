import FlowKit

/// A running host's place, saved: the presentation as the requests that rebuild it (FlowKit's
/// ``FlowSnapshot``, with the state of the running services that adopt `StateHandoff`, by manifest
/// name), plus the experiment assignments of the run.
///
/// Its JSON form, what `save FILE` writes and `restore FILE` and `flowhost run --restore FILE` read:
///
/// ```json
/// {
///   "format": "flowhost-snapshot",
///   "version": 1,
///   "manifest": "demo",
///   "experiments": {"create-flow": {"ada": "classic"}},
///   "flow": {"version": 2, "steps": [...], "presentation": {...}, "children": [...], "services": {...}}
/// }
/// ```
///
/// `flow` is FlowKit's shape (its own `version`), documented in `manifests/README.md`.
package struct HostSnapshot: Sendable, Hashable {
    /// The version of the host's part of the shape this flowhost writes, and the newest it reads.
    package static let currentVersion = 1
    /// The value of `format`, which tells a snapshot from any other JSON file.
    package static let format = "flowhost-snapshot"

    /// The version of the host's part of the shape.
    package var version: Int
    /// The `name` of the manifest the host ran, for reports; a snapshot restores against any manifest.
    package var manifest: String?
    /// The variant each exposed subject got, by experiment then subject.
    package var experiments: [String: [String: String]]
    /// The presentation and the services' state.
    package var flow: FlowSnapshot

    package init(
        version: Int = HostSnapshot.currentVersion, manifest: String?, experiments: [String: [String: String]] = [:],
        flow: FlowSnapshot
    ) {
        self.version = version
        self.manifest = manifest
        self.experiments = experiments
        self.flow = flow
    }

    /// The JSON form.
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "format": .string(Self.format), "version": .number(Double(version)),
            "experiments": .object(experiments.mapValues { .object($0.mapValues(JSONValue.string)) }),
            "flow": flow.json,
        ]
        if let manifest { members["manifest"] = .string(manifest) }
        return .object(members)
    }

    /// Reads the JSON form.
    ///
    /// - Throws: ``FlowError`` naming the first problem: not a snapshot, a version this flowhost (or its
    ///   FlowKit) does not read, or the member that is missing or of the wrong type.
    package init(json: JSONValue) throws(FlowError) {
        guard let members = json.object, members["format"]?.string == Self.format else {
            throw FlowError("not a flowhost snapshot: it lacks \"format\": \"\(Self.format)\"")
        }
        guard let version = members["version"]?.int else {
            throw FlowError("invalid snapshot: 'version' must be a whole number")
        }
        guard version <= Self.currentVersion else {
            throw FlowError(
                "snapshot version \(version) is newer than this flowhost reads (\(Self.currentVersion)); restore it with the flowhost that saved it"
            )
        }
        guard version >= 1 else { throw FlowError("snapshot version \(version) is unknown; versions start at 1") }
        var experiments: [String: [String: String]] = [:]
        for (experiment, subjects) in members["experiments"]?.object ?? [:] {
            for (subject, variant) in subjects.object ?? [:] {
                guard let variant = variant.string else {
                    throw FlowError(
                        "invalid snapshot: at experiments.\(experiment).\(subject): the variant must be a string, not \(variant.typeName)"
                    )
                }
                experiments[experiment, default: [:]][subject] = variant
            }
        }
        guard let flow = members["flow"] else { throw FlowError("invalid snapshot: 'flow' is missing") }
        self.init(
            version: version, manifest: members["manifest"]?.string, experiments: experiments,
            flow: try FlowSnapshot(json: flow))
    }
}
