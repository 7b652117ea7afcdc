import FlowKit

/// The `experiments` section and routes to experiments.
extension ManifestParser {
    static let experimentKeys = ["salt", "subject", "variants"]
    static let variantKeys = ["manager", "name", "plugin", "weight"]
    /// The largest weight: keeps the sum of any experiment's weights far from overflowing.
    package static let maximumWeight = 1_000_000

    mutating func experiments(_ value: JSONValue?, declared: Set<String>?) -> [String: Manifest.Experiment] {
        guard let value else { return [:] }
        guard case .object(let entries) = value else {
            wrongType("object", value, at: "experiments")
            return [:]
        }
        var experiments: [String: Manifest.Experiment] = [:]
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let path = Self.path("experiments", key: name)
            guard let members = object(entry, at: path, allowed: Self.experimentKeys) else { continue }
            let subject = requiredName("subject", in: members, at: path, what: "subject path")
            let salt = members["salt"].flatMap { string($0, at: path + ".salt") } ?? name
            let variants = elements(of: required("variants", in: members, at: path), at: path + ".variants")
                .compactMap { index, element in variant(element, at: "\(path).variants[\(index)]", declared: declared) }
            if members["variants"] != nil {
                checkVariants(variants, at: path + ".variants")
            }
            if let subject {
                experiments[name] = Manifest.Experiment(name: name, subject: subject, salt: salt, variants: variants)
            }
        }
        return experiments
    }

    private mutating func variant(_ value: JSONValue, at path: String, declared: Set<String>?) -> Manifest.Experiment
        .Variant?
    {
        guard let members = object(value, at: path, allowed: Self.variantKeys) else { return nil }
        let name = requiredName("name", in: members, at: path, what: "variant name")
        let plugin = requiredName("plugin", in: members, at: path, what: "plugin name")
        let manager = requiredName("manager", in: members, at: path, what: "manager name")
        checkDeclared(plugin, at: path + ".plugin", declared: declared)
        var weight = 1
        if let value = members["weight"] {
            if let number = value.int, (0...Self.maximumWeight).contains(number) {
                weight = number
            } else if value.int != nil {
                report(
                    .badExperiment, at: path + ".weight",
                    "weight \(value) is out of range; give a whole number from 0 to \(Self.maximumWeight)")
            } else {
                wrongType("integer of 0 or more", value, at: path + ".weight")
            }
        }
        guard let name, let plugin, let manager else { return nil }
        return Manifest.Experiment.Variant(name: name, plugin: plugin, manager: manager, weight: weight)
    }

    private mutating func checkVariants(_ variants: [Manifest.Experiment.Variant], at path: String) {
        if variants.isEmpty {
            report(.badExperiment, at: path, "an experiment needs at least one variant")
        } else if variants.allSatisfy({ $0.weight == 0 }) {
            report(.badExperiment, at: path, "the variants' weights add up to 0; give at least one a weight above 0")
        }
        var seen = Set<String>()
        for variant in variants where !seen.insert(variant.name).inserted {
            report(
                .badExperiment, at: path,
                "variant name \(quoted(variant.name)) is used twice; variant names must differ")
        }
    }

    /// The experiment a route names, checked; reports a route that also names a plugin or manager.
    mutating func experimentRoute(
        _ value: JSONValue, _ members: [String: JSONValue], at path: String, experiments: Set<String>
    ) -> String? {
        if members["plugin"] != nil || members["manager"] != nil {
            report(.badExperiment, at: path, "a route names either an experiment or a plugin and manager, not both")
        }
        guard let name = name(value, at: path + ".experiment", what: "experiment name") else { return nil }
        guard experiments.contains(name) else {
            let declared =
                experiments.isEmpty
                ? "\"experiments\" declares none"
                : "declared experiments are " + experiments.sorted().map(quoted).joined(separator: ", ")
            report(
                .badExperiment, at: path + ".experiment",
                "experiment \(quoted(name)) is not declared in \"experiments\"; \(declared)")
            return nil
        }
        return name
    }
}
