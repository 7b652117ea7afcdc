import FlowKit
import Testing

@testable import FlowHost
@testable import FlowTraces

/// An arm no subject was exposed to has no conversion: 0 of 0 is not 0%. It was reported as 0%, and compared
/// as such (`express vs classic: -100.0 points`, `"difference": -1`, `"conversion": 0`).
@MainActor
struct EmptyArmTests {
    /// Two subjects of the control, both reaching the goal; none in the treatment.
    static func report() throws -> ExperimentReport {
        var text = TraceText(weights: [50, 50], goal: "done")
        text.session("c0", "control", reaches: (1, 1))
        text.session("c1", "control", reaches: (2, 3))
        return try ExperimentReport(traces: [try Trace.parse(text.text, file: "empty.jsonl")], goal: "done")
    }

    @Test func anEmptyArmHasNoConversionAndIsNotCompared() throws {
        let report = try Self.report()

        let experiment = try #require(report.experiments.first)
        #expect(experiment.variants[1].exposed == 0)
        #expect(experiment.variants[1].conversion == nil && experiment.variants[1].interval == nil)
        #expect(experiment.variants[0].conversion == 1)
        #expect(experiment.comparisons.first?.difference == nil)
        #expect(
            Array(report.lines[3...6]) == [
                "  variant    weight  exposed  reached  conversion  95% interval    median steps  median time",
                "  control    50      2        2        100.0%      34.2% - 100.0%  1.5           2.00 ms",
                "  treatment  50      0        0        n/a         n/a             -             -",
                "  treatment vs control: not compared: an arm has no subjects",
            ])
    }

    @Test func anEmptyArmIsNullInJSON() throws {
        let experiment = try #require(try Self.report().json["experiments"]?[0])

        let empty = try #require(experiment["variants"]?[1])
        #expect(empty["exposed"] == 0)
        #expect(empty["conversion"] == .null)
        #expect(empty["interval"] == ["lower": .null, "upper": .null])
        #expect(experiment["variants"]?[0]?["conversion"] == 1)
        let comparison = try #require(experiment["comparisons"]?[0])
        #expect(comparison["difference"] == .null && comparison["z"] == .null && comparison["p"] == .null)
    }
}
