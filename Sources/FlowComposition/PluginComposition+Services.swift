import FlowKit
import FlowManifest
import PluginLoading

/// Services: the manifest's, then those the plugins ask to start, in requirement order and after what
/// each one's `after` names.
extension PluginComposition {
    /// The services to start, in order; reports services that name unknown plugins or are not exported.
    mutating func composeServices(known: Set<String>, refused: [String: PluginLoadError]) -> [Manifest.ServiceRef] {
        var services: [Manifest.ServiceRef] = []
        for (index, service) in declared.services.enumerated() {
            guard refused[service.plugin] == nil else { continue }  // its refusal is reported already
            if unknownPlugin(service.plugin, known: known, at: "services[\(index)]") { continue }
            services.append(service)
        }
        var started = Set(services)
        var declaredStarts: [(ref: Manifest.ServiceRef, after: [String])] = []
        for name in loadOrder {
            guard let plugin = plugin(named: name), let probe = plugin.probe else { continue }
            for start in probe.startServices {
                if var problem = probe.startProblem(start) {
                    problem.file = plugin.library
                    problems.append(problem)
                    continue
                }
                let ref = Manifest.ServiceRef(plugin: name, service: start.name)
                if started.insert(ref).inserted { declaredStarts.append((ref, start.after)) }
            }
        }
        return services + orderServices(declaredStarts)
    }

    /// `starts` in their order, moved only as far as needed for each to come after the services its
    /// `after` names (those not among them are ignored); a cycle of `after` is reported and left in order.
    private mutating func orderServices(_ starts: [(ref: Manifest.ServiceRef, after: [String])]) -> [Manifest
        .ServiceRef]
    {
        let names = starts.map(\.ref.reportedName)
        let present = Set(names)
        var placed: [Manifest.ServiceRef] = []
        var done = Set<String>()
        var waiting = Array(starts.indices)
        while !waiting.isEmpty {
            guard
                let next = waiting.firstIndex(where: { index in
                    starts[index].after.allSatisfy { done.contains($0) || !present.contains($0) }
                })
            else {
                let cycle = waiting.map { names[$0] }
                problems.append(
                    PluginLoadError(
                        file: declared.path, kind: .requirementCycle,
                        message:
                            "services \(cycle.map { "'\($0)'" }.joined(separator: ", ")) each start after another of them; they start in requirement order instead"
                    ))
                placed += waiting.map { starts[$0].ref }
                break
            }
            let index = waiting.remove(at: next)
            placed.append(starts[index].ref)
            done.insert(names[index])
        }
        return placed
    }

    /// Whether plugin `name`, which the manifest names at `place`, is unknown (and reports it).
    private mutating func unknownPlugin(_ name: String, known: Set<String>, at place: String) -> Bool {
        guard !known.contains(name) else { return false }
        problems.append(
            PluginLoadError(
                file: declared.path, kind: .notFound,
                message:
                    "\(place) names plugin '\(name)', which is neither in \"plugins\" nor found in a discovered directory; known plugins: \(known.isEmpty ? "none" : known.sorted().joined(separator: ", "))"
            ))
        return true
    }
}
