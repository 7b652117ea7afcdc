import Glibc

/// Starting eagerly (`flowhost run MANIFEST --eager`) with a warm registry cache: every plugin is probed
/// through the cache, which holds an entry for each, and loaded; against `--trust`, which loads them without
/// a probe. Each plugin count has a cache directory of its own, filled by one untimed run first, so that a
/// start with 200 plugins reads a cache of 200 entries and one with 1,000 a cache of 1,000.
///
/// Each run is measured by the processor time of the `flowhost` process, user and system over all its
/// threads (`wait4`'s `rusage`, which includes any child it waited for, such as a probe), as
/// ``TraceCostBenchmark`` does: the start is work on one thread that waits for nothing once the cache is
/// warm (0.92 of a processor busy from exec to exit, alone on the machine), so its wall time is that work
/// plus however long it waited for a core while other processes ran. On this shared 2-core machine, with
/// both cores kept busy, the ratio of 200 plugins to `--trust` measured 3.94 and 3.17 in wall time against
/// 2.61 and 2.59 in processor time (one build), 2.23 and 1.43 against 1.50 and 1.44 (another); alone on
/// the machine, wall and processor time gave the same ratios (2.54 to 2.62 and 2.60; 1.40 to 1.43 and
/// 1.43 to 1.44). Processor time does not see a start that waits (a sleep, a blocking read); the wall
/// times are in the detail for that.
@MainActor
struct EagerStartBenchmark {
    typealias Cost = ChildProcess.Cost

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

    /// What one eager run with `count` plugins cost, with `--trust` when `trusted`:
    /// `flowhost run MANIFEST --script EMPTY --quiet --eager [--trust]`.
    func run(_ count: Int, trusted: Bool = false) throws -> Cost {
        guard let manifest = manifests[count] else {
            throw SwapBenchmark.Failure(description: "no manifest of \(count) plugins")
        }
        return try ChildProcess.cost(
            flowhost, ["run", manifest, "--script", script, "--quiet", "--eager"] + (trusted ? ["--trust"] : []),
            cacheDirectory: directory + "/cache\(count)")
    }

    /// The best of `rounds` rounds of `measured` and of `baseline`, interleaved, each measure on its own:
    /// (measured, baseline).
    static func pair(rounds: Int, _ measured: () throws -> Cost, _ baseline: () throws -> Cost) rethrows
        -> (Cost, Cost)
    {
        var best = (Cost(wall: .infinity, processor: .infinity), Cost(wall: .infinity, processor: .infinity))
        func keep(_ cost: Cost, in best: inout Cost) {
            best = Cost(wall: min(best.wall, cost.wall), processor: min(best.processor, cost.processor))
        }
        for _ in 0..<rounds {
            keep(try measured(), in: &best.0)
            keep(try baseline(), in: &best.1)
        }
        return best
    }
}
