import FlowKit
import HostSupport
import PluginLoading

/// `flowbench`: the figures the performance issue bounds, measured on this machine in one run, each ratio
/// from two measurements interleaved round by round (best round of each).
///
///     swift build -c release && swift run -c release flowbench [--json]
///
/// For counting instructions, which stay put on a noisy machine, `flowbench requests N [coordinated|direct]`
/// runs N requests through the coordinator, or as direct calls, or both, and `flowbench host-requests N
/// [host|direct]` the same through the host, on one thread and without timing:
/// `valgrind --tool=callgrind .build/release/flowbench requests 100000` (valgrind cannot run the
/// processes that start dispatch worker threads, as the swap and reload benchmarks do).
@main @MainActor
struct FlowBench {
    /// One figure: a ratio, milliseconds or megabytes, with the bound it must meet.
    struct Figure {
        var key: String
        var label: String
        var value: Double
        var bound: Double
        var detail: String

        var isMet: Bool { value <= bound }
    }

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let buildDirectory = ProcessInfoLite.executableDirectory() ?? "."
        switch arguments.first {
        case "requests":
            Timing.warmsUp = false
            let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
            let only = arguments.dropFirst(2).first
            if only != "direct" { _ = RequestPathBenchmark.coordinated(iterations: count) }
            if only != "coordinated" { _ = RequestPathBenchmark.direct(iterations: count) }
        case "host-requests":
            Timing.warmsUp = false
            let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
            let only = arguments.dropFirst(2).first
            do {
                let host = try HostPathBenchmark.host(buildDirectory: buildDirectory)
                if only != "direct" { _ = HostPathBenchmark.throughHost(host, iterations: count) }
                if only != "host" { _ = try HostPathBenchmark.direct(host, iterations: count) }
            } catch {
                print("flowbench: \(error)")
            }
        case "startup":
            // `flowbench startup PLUGINS N`: N lazy starts with PLUGINS declared, for callgrind.
            let plugins = arguments.dropFirst().first.flatMap { Int($0) } ?? 200
            let count = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100
            do {
                let directory = try SwapBenchmark.temporaryDirectory()
                let path = try StartupBenchmark.manifest(
                    plugins: plugins, in: directory, buildDirectory: buildDirectory)
                for _ in 0..<count {
                    _ = try StartupBenchmark.start(path: path, searchPath: PluginSearchPath([buildDirectory]))
                }
            } catch {
                print("flowbench: \(error)")
            }
        case "peak-rss":
            // `flowbench peak-rss FILE PROGRAM ARGUMENT...`, for `mb.reportRSS` (ReportMemoryBenchmark).
            ReportMemoryBenchmark.measureChild(Array(arguments.dropFirst()))
        default:
            let asJSON = arguments.contains("--json")
            // `--only KEY,...` measures those figures alone (`requestPath`, `ms.swapMedian`, ...).
            let only = arguments.firstIndex(of: "--only").flatMap { arguments.dropFirst($0 + 1).first }.map {
                Set($0.split(separator: ",").map(String.init))
            }
            let figures = await measureAll(buildDirectory: buildDirectory, only: only) { figure in
                if !asJSON { printRow(figure) }
            }
            if asJSON { print(json(figures).prettyDescription) }
        }
    }

    /// Every figure, each passed to `measured` as soon as it is known.
    static func measureAll(buildDirectory: String, only: Set<String>? = nil, measured: (Figure) -> Void) async
        -> [Figure]
    {
        var figures: [Figure] = []
        func wanted(_ key: String) -> Bool {
            guard let only else { return true }
            return only.contains(key) || only.contains(String(key.split(separator: ".").last ?? ""))
        }
        func add(_ figure: Figure) {
            figures.append(figure)
            measured(figure)
        }
        func ratio(
            _ key: String, _ label: String, bound: Double, _ pair: @autoclosure () -> (Double, Double),
            unit: String = "ns"
        ) {
            // By its whole key, as the other figures are: `--only ratios.hostPath` measured nothing.
            guard wanted("ratios." + key) else { return }
            let pair = pair()
            add(
                Figure(
                    key: "ratios." + key, label: label, value: pair.0 / pair.1, bound: bound,
                    detail: "\(format(pair.0)) vs \(format(pair.1)) \(unit)"))
        }

        ratio(
            "requestPath", "request path: BaseFlowCoordinator vs direct calls", bound: 1.50,
            Timing.pair(
                rounds: 15, { RequestPathBenchmark.coordinated(iterations: 150_000) },
                { RequestPathBenchmark.direct(iterations: 150_000) }))
        if wanted("ratios.hostPath") {
            do {
                let host = try HostPathBenchmark.host(buildDirectory: buildDirectory)
                ratio(
                    "hostPath", "host path: dlopened plugin, stats and a recording listener, vs direct", bound: 2.00,
                    Timing.pair(
                        rounds: 15, { HostPathBenchmark.throughHost(host, iterations: 100_000) },
                        { try! HostPathBenchmark.direct(host, iterations: 100_000) }))
            } catch {
                print("flowbench: host path not measured: \(error)")
            }
        }
        ratio(
            "routes100kVs64", "64 names in rotation: 100,000 routes vs 64", bound: 1.50,
            Timing.pair(
                { RequestPathBenchmark.rotating(names: 64, routes: 100_000, iterations: 200_000) },
                { RequestPathBenchmark.rotating(names: 64, routes: 64, iterations: 200_000) }))
        ratio(
            "names64Vs1", "1,000 routes: 64 names in rotation vs one", bound: 1.20,
            Timing.pair(
                { RequestPathBenchmark.rotating(names: 64, routes: 1_000, iterations: 200_000) },
                { RequestPathBenchmark.rotating(names: 1, routes: 1_000, iterations: 200_000) }))
        ratio(
            "children1000Vs0", "present and back: 1,000 open child flows vs none", bound: 1.50,
            Timing.pair(
                rounds: 3, { RequestPathBenchmark.withChildren(1_000) },
                { RequestPathBenchmark.withChildren(0) }))
        let large = RequestPathBenchmark.payload(bytes: 100_000)
        ratio(
            "actionPayload100kVsEmpty", "module action: 100 KB payload vs empty", bound: 1.50,
            Timing.pair(
                rounds: 3, { RequestPathBenchmark.action(payload: large) },
                { RequestPathBenchmark.action(payload: .empty) }))
        if wanted("ratios.startupLazy200Vs1") {
            do {
                let directory = try SwapBenchmark.temporaryDirectory()
                let many = try StartupBenchmark.manifest(plugins: 200, in: directory, buildDirectory: buildDirectory)
                let one = try StartupBenchmark.manifest(plugins: 1, in: directory, buildDirectory: buildDirectory)
                let script = try StartupBenchmark.emptyScript(in: directory)
                let flowhost = buildDirectory + "/flowhost"
                let searchPath = PluginSearchPath([buildDirectory])
                let inProcess = Timing.pair(
                    rounds: 20, { try! StartupBenchmark.start(path: many, searchPath: searchPath) },
                    { try! StartupBenchmark.start(path: one, searchPath: searchPath) })
                let run = Timing.pair(
                    rounds: 15,
                    {
                        try! StartupBenchmark.run(
                            flowhost: flowhost, manifest: many, script: script, cacheDirectory: directory)
                    },
                    {
                        try! StartupBenchmark.run(
                            flowhost: flowhost, manifest: one, script: script, cacheDirectory: directory)
                    })
                if wanted("ratios.startupLazy200Vs1") {
                    add(
                        Figure(
                            key: "ratios.startupLazy200Vs1", label: "flowhost run to ready: 200 declared plugins vs 1",
                            value: run.0 / run.1, bound: 1.20,
                            detail:
                                "\(format(run.0 / 1000)) vs \(format(run.1 / 1000)) ms; in process, manifest to started host: \(format(inProcess.0)) vs \(format(inProcess.1)) us"
                        ))
                }
                StartupBenchmark.removeDirectory(directory)
            } catch {
                print("flowbench: startup not measured: \(error)")
            }
        }
        if wanted("ratios.eagerWarm1000Vs200") || wanted("ratios.eagerWarm200VsTrust") {
            do {
                let eager = try EagerStartBenchmark(
                    counts: wanted("ratios.eagerWarm1000Vs200") ? [200, 1_000] : [200], buildDirectory: buildDirectory)
                // Processor time of each run, best round of each (EagerStartBenchmark says why).
                func detail(_ run: (EagerStartBenchmark.Cost, EagerStartBenchmark.Cost)) -> String {
                    "processor \(format(run.0.processor)) vs \(format(run.1.processor)) ms; wall \(format(run.0.wall)) vs \(format(run.1.wall)) ms"
                }
                if wanted("ratios.eagerWarm1000Vs200") {
                    let run = try EagerStartBenchmark.pair(rounds: 3, { try eager.run(1_000) }, { try eager.run(200) })
                    add(
                        Figure(
                            key: "ratios.eagerWarm1000Vs200", label: "eager start, warm cache: 1,000 plugins vs 200",
                            value: run.0.processor / run.1.processor, bound: 6, detail: detail(run)))
                }
                if wanted("ratios.eagerWarm200VsTrust") {
                    let run = try EagerStartBenchmark.pair(
                        rounds: 5, { try eager.run(200) }, { try eager.run(200, trusted: true) })
                    add(
                        Figure(
                            key: "ratios.eagerWarm200VsTrust",
                            label: "eager start of 200 plugins: warm cache vs --trust",
                            value: run.0.processor / run.1.processor, bound: 3, detail: detail(run)))
                }
                StartupBenchmark.removeDirectory(eager.directory)
            } catch {
                print("flowbench: eager start not measured: \(error)")
            }
        }
        if wanted("ms.swapMedian") {
            do {
                let times = try await SwapBenchmark.run(swaps: 21, buildDirectory: buildDirectory).sorted()
                add(
                    Figure(
                        key: "ms.swapMedian", label: "hot swap: renamed into place -> served by the new generation",
                        value: times[times.count / 2], bound: 0.5,
                        detail: "ms, median of \(times.count); min \(format(times[0])), max \(format(times.last!))"))
            } catch {
                print("flowbench: hot swap not measured: \(error) (build the fixtures first: swift build -c release)")
            }
        }
        if wanted("ms.reloadUnderLoadP99") {
            do {
                let times = try await ReloadUnderLoadBenchmark.run(reloads: 60, buildDirectory: buildDirectory).sorted()
                add(
                    Figure(
                        key: "ms.reloadUnderLoadP99", label: "reload while 4 tasks saturate submit",
                        value: times[times.count * 99 / 100], bound: 10,
                        detail: "ms, p99 of \(times.count); median \(format(times[times.count / 2]))"))
            } catch {
                print("flowbench: reload under load not measured: \(error)")
            }
        }
        if wanted("mb.reportRSS") {
            do {
                let report = try ReportMemoryBenchmark.run(buildDirectory: buildDirectory)
                add(
                    Figure(
                        key: "mb.reportRSS", label: "experiments report of a 100 MB trace: peak resident set",
                        value: report.peakMiB, bound: 100,
                        detail:
                            "MiB; \(format(Double(report.traceBytes) / 1_048_576)) MiB trace, \(report.subjects) subjects, \(format(report.seconds)) s"
                    ))
            } catch {
                print("flowbench: report memory not measured: \(error)")
            }
        }
        func traceCost(_ key: String, _ label: String, bound: Double, _ arguments: [String], rounds: Int) {
            guard wanted("ratios." + key) else { return }
            do {
                let cost = try TraceCostBenchmark.run(arguments, rounds: rounds, buildDirectory: buildDirectory)
                let trace =
                    cost.traceBytes >= 1 << 20
                    ? "\(format(Double(cost.traceBytes) / 1_048_576)) MiB"
                    : "\(format(Double(cost.traceBytes) / 1024)) KiB"
                add(
                    Figure(
                        key: "ratios." + key, label: label, value: cost.ratio, bound: bound,
                        detail: "\(format(cost.traced.processor)) vs \(format(cost.untraced.processor)) ms processor "
                            + "time (user+system, median of \(cost.rounds)); wall \(format(cost.traced.wall)) vs "
                            + "\(format(cost.untraced.wall)) ms; trace \(trace)"))
            } catch {
                print("flowbench: trace cost not measured: \(error)")
            }
        }
        traceCost(
            "traceSubjects", "run --subjects 2000 of experiment.json: --trace vs without", bound: 1.25,
            TraceCostBenchmark.subjectsRun, rounds: 5)
        traceCost(
            "traceDemo", "run of demo.json with its script: --trace vs without", bound: 1.15,
            TraceCostBenchmark.demoRun, rounds: 50)
        if wanted("ratios.memory1000ReloadsVs10") {
            do {
                let many = try ReloadMemoryBenchmark.run(reloads: 1_000, buildDirectory: buildDirectory)
                let few = try ReloadMemoryBenchmark.run(reloads: 10, buildDirectory: buildDirectory)
                add(
                    Figure(
                        key: "ratios.memory1000ReloadsVs10", label: "supervised --watch RSS: 1,000 reloads vs 10",
                        value: many.host / few.host, bound: 2,
                        detail: "\(format(many.host / 1024)) vs \(format(few.host / 1024)) MB; supervisor "
                            + "\(format(many.supervisor / 1024)) vs \(format(few.supervisor / 1024)) MB"))
            } catch {
                print("flowbench: memory after reloads not measured: \(error)")
            }
        }
        return figures
    }

    /// One row of the table: label, value, bound, verdict, the measurements behind it.
    static func printRow(_ figure: Figure) {
        let label = figure.label.padding(to: 62)
        let verdict = figure.isMet ? "ok  " : "OVER"
        print(
            "\(label)  \(format(figure.value).leftPadding(to: 8))  <= \(format(figure.bound).leftPadding(to: 5))  \(verdict)  \(figure.detail)"
        )
    }

    /// `{"ratios": {...}, "ms": {...}, "mb": {...}, "bounds": {...}, "met": true|false}`.
    static func json(_ figures: [Figure]) -> JSONValue {
        var groups: [String: [String: JSONValue]] = [:]
        var bounds: [String: JSONValue] = [:]
        for figure in figures {
            let parts = figure.key.split(separator: ".", maxSplits: 1).map(String.init)
            groups[parts[0], default: [:]][parts[1]] = .number((figure.value * 1000).rounded() / 1000)
            bounds[figure.key] = .number(figure.bound)
        }
        var object = groups.mapValues(JSONValue.object)
        object["bounds"] = .object(bounds)
        object["met"] = .bool(figures.allSatisfy(\.isMet))
        return .object(object)
    }

    static func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    fileprivate func leftPadding(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
