import Glibc

/// Starting eagerly (`flowhost run MANIFEST --eager`) with a warm registry cache: every plugin is probed
/// through the cache, which holds an entry for each, and loaded; against `--trust`, which loads them without
/// a probe. Each plugin count has a cache directory of its own, filled by one untimed run first, so that a
/// start with 200 plugins reads a cache of 200 entries and one with 1,000 a cache of 1,000.
@MainActor
struct EagerStartBenchmark {
    let flowhost: String
    let directory: String
    let script: String
    private var manifests: [Int: String] = [:]

    /// Copies of the welcome plugin for the largest of `counts`, a manifest for each count (the first
    /// `count` of them), and a warm cache for each.
    init(counts: [Int], buildDirectory: String) throws {
        flowhost = buildDirectory + "/flowhost"
        directory = try SwapBenchmark.temporaryDirectory()
        script = try StartupBenchmark.emptyScript(in: directory)
        let libraries = try StartupBenchmark.distinctLibraries(
            counts.max() ?? 0, in: directory, buildDirectory: buildDirectory)
        for count in counts {
            manifests[count] = try StartupBenchmark.manifest(
                libraries: Array(libraries.prefix(count)), in: directory, name: "eager\(count)")
            _ = try run(count)  // fills the cache
        }
    }

    /// Microseconds of one eager run with `count` plugins, with `--trust` when `trusted`.
    func run(_ count: Int, trusted: Bool = false) throws -> Double {
        guard let manifest = manifests[count] else {
            throw SwapBenchmark.Failure(description: "no manifest of \(count) plugins")
        }
        return try StartupBenchmark.run(
            flowhost: flowhost, manifest: manifest, script: script, cacheDirectory: directory + "/cache\(count)",
            arguments: trusted ? ["--eager", "--trust"] : ["--eager"])
    }
}
