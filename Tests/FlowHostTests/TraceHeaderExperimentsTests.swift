import FlowKit
import Testing

@testable import FlowTraces

/// A trace's header records the experiments of the manifest it ran: weights no manifest can have (negative,
/// fractional, past the largest, all 0) are refused as the header's error, line 1, not reported against.
struct TraceHeaderExperimentsTests {
    /// A header whose experiment `exp` has the variants `a` and `b` with `weights`.
    private static func header(weights: [JSONValue]) -> String {
        let variants = zip(["a", "b"], weights).map { JSONValue.object(["name": .string($0), "weight": $1]) }
        let header: JSONValue = [
            "kind": "trace", "t": 0, "session": 0, "input": 0, "version": 2,
            "experiments": ["exp": ["subject": "user.id", "salt": "exp", "variants": .array(variants)]],
        ]
        return header.description
    }

    @Test func weightsNoManifestCanHaveAreTheHeadersError() {
        let range = "a manifest's weights are whole numbers from 0 to 1000000"
        for (weight, shown) in [(JSONValue.number(-50), "-50"), (0.5, "0.5"), (1_000_001, "1000001")] {
            #expect(
                throws: TraceError("experiment 'exp' variant 'a' has weight \(shown); \(range)", file: "t", line: 1)
            ) {
                _ = try Trace.parse(Self.header(weights: [weight, 50]) + "\n", file: "t")
            }
        }
        #expect(
            throws: TraceError(
                "experiment 'exp': the variants' weights add up to 0; a manifest gives at least one a weight above 0",
                file: "t", line: 1)
        ) {
            _ = try Trace.parse(Self.header(weights: [0, 0]) + "\n", file: "t")
        }
        #expect(throws: Never.self) { _ = try Trace.parse(Self.header(weights: [0, 50]) + "\n", file: "t") }
    }

    @Test func experimentsReportRefusesANegativeWeightInOneLine() throws {
        let directory = try TemporaryDirectory()
        let trace = try directory.file("t.jsonl", containing: Self.header(weights: [-50, 50]) + "\n")

        let report = try Subprocess.flowhost(["experiments", "report", trace, "--goal", "catalog.detail"])

        #expect(report.status == 65)
        #expect(
            report.errorLines == [
                "flowhost: \(trace):1: experiment 'exp' variant 'a' has weight -50; a manifest's weights are whole numbers from 0 to 1000000"
            ])
        #expect(report.standardOutput.isEmpty, "no report against weights -50 : 50")
    }
}
