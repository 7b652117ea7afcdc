import FlowKit

/// The builds of each plugin that traces reported together ran, told apart by their digests: a variant rebuilt
/// between two runs is another variant, which the report would count as one.
extension ExperimentReport {
    /// A plugin that ran a build in one trace that an earlier trace did not run (its `handling` and
    /// `pluginReloaded` lines' `digest`). A build reloaded within one trace (`--watch`) is that run's own doing,
    /// and is not one.
    package struct DifferentBuilds: Sendable, Hashable {
        /// A build, and the first trace that ran it.
        package struct Build: Sendable, Hashable {
            package var digest: String
            package var file: String
        }

        package var plugin: String
        /// Each build, in the order the traces first ran them.
        package var builds: [Build]

        /// `plugin 'express' ran other builds in the traces reported together (sha256 7fe871e828a2 in a.jsonl,
        /// b5276337764d in b.jsonl): ...`.
        var warning: String {
            let builds = builds.map { "\($0.digest.prefix(12)) in \($0.file)" }.joined(separator: ", ")
            return
                "plugin '\(plugin)' ran other builds in the traces reported together (sha256 \(builds)): a variant that changed between them is reported as one; report each build on its own"
        }
    }

    /// The builds of each plugin the traces ran, with the first trace that ran each, as they are read.
    struct PluginBuilds {
        private var builds: [String: [DifferentBuilds.Build]] = [:]

        /// Notes the build `event` ran, when it names one, in `file`.
        mutating func read(_ event: TraceEvent, in file: String) {
            guard event.kind == .handling || event.kind == .pluginReloaded, let plugin = event["plugin"]?.string,
                let digest = event["digest"]?.string, builds[plugin]?.contains(where: { $0.digest == digest }) != true
            else { return }
            builds[plugin, default: []].append(DifferentBuilds.Build(digest: digest, file: file))
        }

        /// The plugins whose builds the traces first ran in more than one of them, by name.
        var differing: [DifferentBuilds] {
            builds.sorted { $0.key < $1.key }.compactMap { plugin, builds in
                Set(builds.map(\.file)).count > 1 ? DifferentBuilds(plugin: plugin, builds: builds) : nil
            }
        }
    }
}
