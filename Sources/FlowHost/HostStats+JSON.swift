import FlowKit
import FlowManifest

extension Host {
    /// What the shell's `stats` prints: ``statsLines``, or with `--json` the one line of ``statsJSON``.
    ///
    /// - Throws: ``FlowError`` for any other argument.
    package func statsLines(arguments: String) throws(FlowError) -> [String] {
        switch arguments {
        case "": return statsLines
        case "--json": return [statsJSON.description]
        default: throw FlowError("usage: stats [--json]")
        }
    }

    /// The stats as one JSON object, with the same figures as ``statsLines``:
    ///
    /// ```json
    /// {"experiments": {"create-flow": {"classic": 1}},
    ///  "plugins": {"auth": {"images": 1, "status": "loaded"}},
    ///  "reloads": {"maxImagesPerPlugin": 64, "oldImagesMapped": 0, "refused": 0, "succeeded": 0},
    ///  "requests": {"byManager": {"auth.SignIn": 1}, "deadLettered": 0, "failed": 0, "handled": 1,
    ///               "queued": 0, "unhandled": 0}}
    /// ```
    package var statsJSON: JSONValue {
        let handled = stats.handled.values.reduce(0, +)
        let requests: JSONValue = [
            "handled": .number(Double(handled)), "unhandled": .number(Double(stats.unhandled)),
            "failed": .number(Double(stats.failed)), "queued": .number(Double(stats.queued)),
            "deadLettered": .number(Double(stats.deadLettered)),
            "byManager": .object(handledByManager.mapValues { .number(Double($0)) }),
        ]
        let reloads: JSONValue = [
            "succeeded": .number(Double(stats.reloads)), "refused": .number(Double(stats.refusedReloads)),
            "oldImagesMapped": .number(Double(registry.leakedImages)),
            "maxImagesPerPlugin": .number(Double(registry.maxImagesPerPlugin)),
        ]
        var plugins: [String: JSONValue] = [:]
        for name in registry.pluginNames {
            plugins[name] = [
                "status": .string(statsStatus(of: name).name),
                "images": .number(Double(registry.openedImages(of: name))),
            ]
        }
        var experiments: [String: JSONValue] = [:]
        for (experiment, variants) in HostStats.exposureCounts(stats.exposures, of: manifest.experiments) {
            experiments[experiment] = .object(
                Dictionary(variants.map { ($0.name, .number(Double($0.count))) }) { first, _ in first })
        }
        return [
            "requests": requests, "reloads": reloads, "plugins": .object(plugins),
            "experiments": .object(experiments),
            "withoutSubject": .object(stats.withoutSubject.mapValues { .number(Double($0)) }),
        ]
    }
}

extension PluginRegistry.Status {
    /// `notLoaded`, `loaded` or `failed`, as JSON output says it.
    package var name: String {
        switch self {
        case .notLoaded: "notLoaded"
        case .loaded: "loaded"
        case .failed: "failed"
        }
    }
}
