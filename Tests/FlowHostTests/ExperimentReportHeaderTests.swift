import Testing

@testable import FlowTraces

/// The first line of `experiments report`: the goal and the traces the figures come from.
@MainActor
struct ExperimentReportHeaderTests {
    /// The header names every trace, as it names one: which recordings were read is not left to guess.
    @Test func theHeaderOfAReportOfSeveralTracesNamesEach() throws {
        let traces = [
            try ExperimentReportTests.fixedTrace(file: "a.jsonl"),
            try ExperimentReportTests.fixedTrace(file: "b.jsonl"),
        ]

        #expect(
            try ExperimentReport(traces: traces, goal: "done").lines.first
                == "goal: done, from 2 traces (a.jsonl, b.jsonl)"
        )
    }
}
