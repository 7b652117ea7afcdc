import FlowHost
import FlowKit

/// `flowbench`: the numbers the issues ask for, measured on this machine in one run.
///
///     swift build -c release && swift run -c release flowbench
///
/// `flowbench requests N` runs only N requests each way, on one thread and without timing, for counting
/// instructions: `valgrind --tool=callgrind .build/release/flowbench requests 100000` (valgrind cannot
/// run the swap benchmark's dispatch threads).
@main @MainActor
struct FlowBench {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "requests" {
            let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
            _ = RequestPathBenchmark.coordinated(iterations: count)
            _ = RequestPathBenchmark.direct(iterations: count)
            return
        }
        let iterations = 1_000_000
        // Interleave the two so that machine noise touches both alike; keep each one's best round.
        var coordinated = Double.infinity
        var direct = Double.infinity
        for _ in 0..<5 {
            coordinated = min(coordinated, RequestPathBenchmark.coordinated(iterations: iterations))
            direct = min(direct, RequestPathBenchmark.direct(iterations: iterations))
        }
        print("request path (\(iterations) requests, best of 5 rounds):")
        print("  through BaseFlowCoordinator: \(format(coordinated)) ns per request")
        print("  as direct calls:             \(format(direct)) ns per request")
        print("  ratio:                       \(format(coordinated / direct))x (target: at most 1.25x)")

        guard let buildDirectory = ProcessInfoLite.executableDirectory() else { return }
        do {
            let times = try await SwapBenchmark.run(swaps: 20, buildDirectory: buildDirectory).sorted()
            print("hot swap, file landed -> first request served by the new generation (20 swaps):")
            print(
                "  median \(format(times[times.count / 2])) ms, min \(format(times[0])) ms, max \(format(times[times.count - 1])) ms"
            )
        } catch {
            print("hot swap: not measured: \(error) (build the fixtures first: swift build -c release)")
        }
    }

    static func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
