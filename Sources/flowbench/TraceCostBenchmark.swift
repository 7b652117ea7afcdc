import Glibc

/// What recording costs a run (issue 23): `flowhost run ... --trace FILE` against the same run without,
/// each a process of its own, the two interleaved round by round.
///
/// Each run is measured by the processor time of the `flowhost` process, user and system over all its
/// threads (`wait4`'s `rusage`), and the ratio is that of the medians: on this shared 2-core machine the wall
/// time of a run swings with what else runs (a traced 2,000-subject run took 1.8 to 3.4 s of wall time for
/// 1.8 to 2.3 s of processor time), and the ratio of processor times moves less between runs. Processor time
/// counts the work of every thread, so a recorder that wrote from another thread would not look cheaper for
/// it; the wall times are in the detail too.
@MainActor
enum TraceCostBenchmark {
    /// `flowhost run manifests/experiment.json --subjects 2000 --script manifests/experiment.flow --quiet`.
    static let subjectsRun = [
        "run", ChildProcess.repository + "/manifests/experiment.json", "--subjects", "2000",
        "--script", ChildProcess.repository + "/manifests/experiment.flow", "--quiet",
    ]
    /// `flowhost run manifests/demo.json --script manifests/demo.flow`: about 20 ms.
    static let demoRun = [
        "run", ChildProcess.repository + "/manifests/demo.json",
        "--script", ChildProcess.repository + "/manifests/demo.flow",
    ]

    /// One run's cost, in milliseconds.
    typealias Cost = ChildProcess.Cost

    /// The medians of the rounds, with and without the trace.
    struct Result {
        var traced: Cost
        var untraced: Cost
        var rounds: Int
        /// The size of the trace one run wrote.
        var traceBytes: Int

        /// The processor time with the trace over the time without.
        var ratio: Double { traced.processor / untraced.processor }
    }

    /// Runs `flowhost` with `arguments` and with `arguments --trace FILE`, once each untimed (which fills the
    /// registry cache), then `rounds` times each, interleaved; the trace in a temporary directory, removed
    /// after.
    static func run(_ arguments: [String], rounds: Int, buildDirectory: String) throws -> Result {
        let flowhost = buildDirectory + "/flowhost"
        let directory = try SwapBenchmark.temporaryDirectory()
        defer { StartupBenchmark.removeDirectory(directory) }
        let trace = directory + "/trace.jsonl"
        let what = "flowhost " + arguments.joined(separator: " ")
        func measure(traced: Bool) throws -> Cost {
            // Each traced run creates its trace, as a first run would.
            if traced { unlink(trace) }
            let clock = ContinuousClock()
            let started = clock.now
            let usage = try ChildProcess.wait(
                ChildProcess.spawn(
                    flowhost, arguments + (traced ? ["--trace", trace] : []), cacheDirectory: directory),
                what: traced ? what + " --trace" : what)
            return Cost(wall: (clock.now - started).milliseconds, processor: usage.processorMilliseconds)
        }
        _ = try measure(traced: false)
        _ = try measure(traced: true)
        var traced: [Cost] = []
        var untraced: [Cost] = []
        for _ in 0..<rounds {
            traced.append(try measure(traced: true))
            untraced.append(try measure(traced: false))
        }
        var status = stat()
        guard stat(trace, &status) == 0 else { throw SwapBenchmark.Failure(description: "\(what) wrote no trace") }
        return Result(
            traced: median(traced), untraced: median(untraced), rounds: rounds, traceBytes: Int(status.st_size))
    }

    /// The median of each measure on its own.
    private static func median(_ costs: [Cost]) -> Cost {
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return Cost(wall: median(costs.map(\.wall)), processor: median(costs.map(\.processor)))
    }
}
