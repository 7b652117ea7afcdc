import FlowKit
import FlowManifest

/// A subject's first exposure to an experiment: who, which experiment, which variant.
package struct Exposure: Sendable, Hashable, CustomStringConvertible {
    package var subject: String
    package var experiment: String
    package var variant: String

    package var description: String {
        "exposure: subject '\(subject)' in experiment '\(experiment)' gets variant '\(variant)'"
    }
}

/// Assigns each subject of an experiment to one of its variants: stable, weighted and sticky.
///
/// The rule, documented in `manifests/README.md`: the bucket of a subject is
/// `splitmix64(fnv1a64(salt + "\u{0}" + subject)) % totalWeight`, and the variants own consecutive
/// ranges of buckets of their weights' sizes, in manifest order. The hash is the same in every process
/// (unlike Swift's `hashValue`), so a subject gets the same variant on every run. Within a run a subject
/// keeps the variant of its first exposure even when the weights change: new weights apply to subjects
/// not yet exposed. A request without a subject (the context lacks the subject path) goes to the first
/// variant, the control, and is not an exposure.
@MainActor
package final class ExperimentAssigner {
    private var experiments: [String: Manifest.Experiment]
    /// experiment -> subject -> variant name, for subjects already exposed in this run.
    private var assigned: [String: [String: String]] = [:]
    /// Called once per subject and experiment, on its first exposure.
    package var onExposure: (@MainActor (Exposure) -> Void)?
    /// Called with the experiment's name for each request to it whose context had no subject at the
    /// experiment's path (a path misspelt, or asked before sign-in): it went to the control, exposing no one.
    package var onNoSubject: (@MainActor (String) -> Void)?

    init(_ experiments: [String: Manifest.Experiment]) {
        self.experiments = experiments
    }

    /// Takes the experiments of a reloaded manifest. Exposed subjects keep their variant if it still exists.
    func update(_ experiments: [String: Manifest.Experiment]) {
        self.experiments = experiments
    }

    /// The variant each subject exposed in this run got, by experiment then subject: what a snapshot saves.
    package var assignments: [String: [String: String]] { assigned }

    /// Takes the assignments of a restored snapshot in place of this run's, without reporting exposures:
    /// the subjects were exposed in the run that saved them. Variants no longer in the manifest are ignored
    /// when assigning, as after a manifest reload.
    package func restore(_ assignments: [String: [String: String]]) {
        assigned = assignments
    }

    /// The variant `subject` gets in `experiment` by the hash alone, ignoring earlier exposures.
    package static func variant(of subject: String, in experiment: Manifest.Experiment) -> Manifest.Experiment.Variant {
        let total = experiment.variants.reduce(0) { $0 + $1.weight }
        var bucket = Int(bucket(subject, salt: experiment.salt) % UInt64(max(total, 1)))
        for variant in experiment.variants where variant.weight > 0 {
            if bucket < variant.weight { return variant }
            bucket -= variant.weight
        }
        return experiment.variants[0]
    }

    /// The variant for `subject` in experiment `name`, recording (and reporting) a first exposure.
    package func assign(_ subject: String?, in name: String) -> Manifest.Experiment.Variant? {
        guard let experiment = experiments[name], let control = experiment.variants.first else { return nil }
        guard let subject else {
            onNoSubject?(name)
            return control
        }
        if let previous = assigned[name]?[subject],
            let variant = experiment.variants.first(where: { $0.name == previous })
        {
            return variant
        }
        let variant = Self.variant(of: subject, in: experiment)
        assigned[name, default: [:]][subject] = variant.name
        onExposure?(Exposure(subject: subject, experiment: name, variant: variant.name))
        return variant
    }

    /// A factory for a route to experiment `name`: each request goes to the manager of the variant its
    /// subject (read from `context`) is assigned, reported as `plugin.Manager [experiment:variant]`.
    func factory(
        for name: String, registry: PluginRegistry, context: @escaping @MainActor () -> CoordinatorContext
    ) -> ManagerFactory {
        var bindings: [String: ManagerBinding] = [:]
        for variant in experiments[name]?.variants ?? [] {
            bindings[variant.name] = ManagerBinding(
                plugin: variant.plugin, manager: variant.manager, registry: registry)
        }
        return ManagerFactory(name: "experiment \(name)") { [weak self] in
            guard let self, let experiment = self.experiments[name] else {
                throw FlowError("experiment '\(name)' is no longer in the manifest")
            }
            let subject = context().value(atPath: experiment.subject).flatMap(Self.subjectText)
            guard let variant = self.assign(subject, in: name) else {
                throw FlowError("experiment '\(name)' has no variants")
            }
            let binding =
                bindings[variant.name]
                ?? ManagerBinding(plugin: variant.plugin, manager: variant.manager, registry: registry)
            return try binding.resolve().named("\(binding.reportedName) [\(name):\(variant.name)]")
        }
    }

    private static func subjectText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number, .bool: value.description
        default: nil
        }
    }

    /// FNV-1a (64-bit) of the salt, a NUL and the subject, finished with SplitMix64's mixer so that the
    /// low bits, which the modulo keeps, are as good as the high ones.
    static func bucket(_ subject: String, salt: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in salt.utf8 + [0] + subject.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
