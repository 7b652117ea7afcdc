import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowTraces

/// Experiment reports from small traces written by hand, whose figures are worked out in
/// `StatisticsTests`, and from a real `--subjects` run.
@MainActor
struct ExperimentReportTests {
    /// Ten control subjects of whom four reach the goal, twelve treatment subjects of whom nine do.
    static func fixedTrace(file: String = "fixed.jsonl") throws -> Trace {
        try Trace.parse(fixedText(), file: file)
    }

    /// The text of ``fixedTrace(file:)``.
    static func fixedText() -> String {
        var trace = TraceText(weights: [50, 50], goal: "done")
        // Control reachers: steps 2, 3, 3, 5 (median 3) and 1, 2, 4, 8 ms (median 3 ms).
        for (index, (steps, ms)) in [(2, 1), (3, 2), (3, 4), (5, 8)].enumerated() {
            trace.session("c\(index)", "control", reaches: (steps, ms))
        }
        // Control subjects who do not reach it; one reached "done" before its exposure, which does not count.
        for index in 4..<10 { trace.session("c\(index)", "control", reaches: nil, goalBeforeExposure: index == 4) }
        // Treatment reachers: steps 1, 1, 2, 2, 2, 2, 3, 3, 4 (median 2) and 1 ... 9 ms (median 5 ms).
        for (index, steps) in [1, 1, 2, 2, 2, 2, 3, 3, 4].enumerated() {
            trace.session("t\(index)", "treatment", reaches: (steps, index + 1))
        }
        for index in 9..<12 { trace.session("t\(index)", "treatment", reaches: nil) }
        return trace.text
    }

    @Test func fixedTraceGivesTheHandWorkedFigures() throws {
        let report = try ExperimentReport(traces: [try Self.fixedTrace()], goal: "done")

        let experiment = try #require(report.experiments.first)
        #expect(report.experiments.count == 1)
        #expect(experiment.name == "e")
        #expect(experiment.exposed == 22)
        let control = experiment.variants[0]
        let treatment = experiment.variants[1]
        #expect((control.name, control.weight, control.exposed, control.reached) == ("control", 50, 10, 4))
        #expect((treatment.name, treatment.exposed, treatment.reached) == ("treatment", 12, 9))
        #expect(control.conversion == 0.4)
        #expect(treatment.conversion == 0.75)
        let interval = try #require(control.interval)
        #expect(abs(interval.lower - 0.168180) < 1e-6 && abs(interval.upper - 0.687326) < 1e-6)
        #expect(control.medianSteps == 3)
        #expect(treatment.medianSteps == 2)
        #expect(control.medianTimeNanoseconds == 3_000_000)
        #expect(treatment.medianTimeNanoseconds == 5_000_000)

        let comparison = try #require(experiment.comparisons.first)
        #expect(comparison.variant == "treatment" && comparison.control == "control")
        #expect(abs(try #require(comparison.difference) - 0.35) < 1e-12)
        #expect(abs((comparison.z ?? 0) - 1.662559) < 1e-6)
        #expect(abs((comparison.p ?? 0) - 0.096401) < 1e-6)

        let ratio = experiment.sampleRatio
        #expect(ratio.observed == [10, 12])
        #expect(ratio.expected == [0.5, 0.5])
        #expect(abs(ratio.statistic - 0.181818) < 1e-6)
        #expect(abs((ratio.p ?? 0) - 0.669815) < 1e-6)
        #expect(!ratio.isMismatch)
        #expect(report.warnings.isEmpty)

        #expect(
            report.lines == [
                "goal: done, from 1 trace (fixed.jsonl)",
                "",
                "experiment e (subject user.id): 22 subjects exposed",
                "  variant    weight  exposed  reached  conversion  95% interval   median steps  median time",
                "  control    50      10       4        40.0%       16.8% - 68.7%  3             3.00 ms",
                "  treatment  50      12       9        75.0%       46.8% - 91.1%  2             5.00 ms",
                "  treatment vs control: +35.0 points (two-proportion z-test: z = 1.66, p = 0.096)",
                "  sample ratio: 10 : 12 exposed for weights 50 : 50; chi-square 0.18, 1 df, p = 0.670: as configured",
            ])
    }

    @Test func aSkewedTraceIsASampleRatioMismatchAndSaysSoLoudly() throws {
        var text = TraceText(weights: [50, 50], goal: "done")
        for index in 0..<70 { text.session("c\(index)", "control", reaches: index < 35 ? (2, 1) : nil) }
        for index in 0..<30 { text.session("t\(index)", "treatment", reaches: index < 15 ? (2, 1) : nil) }

        let report = try ExperimentReport(traces: [try Trace.parse(text.text, file: "skewed.jsonl")], goal: "done")

        let ratio = try #require(report.experiments.first?.sampleRatio)
        #expect(ratio.statistic == 16)
        #expect(ratio.isMismatch)
        #expect(
            report.warnings == ["experiment 'e' has a sample ratio mismatch (p < 0.0001); do not trust its figures"])
        #expect(
            report.lines.contains { $0.hasPrefix("  !! SAMPLE RATIO MISMATCH: 70 : 30 exposed for weights 50 : 50") })
        #expect(report.json["experiments"]?[0]?["sampleRatio"]?["mismatch"] == true)
    }

    @Test func subjectsInSeveralTracesCountOnceAndAGoalCountsForTheSubjectExposedLast() throws {
        var first = TraceText(weights: [1, 1], goal: "done")
        first.session("ada", "control", reaches: nil)
        var second = TraceText(weights: [1, 1], goal: "done")
        // ada again (already counted, as control), then grace in the same session, who reaches the goal.
        second.session("ada", "control", reaches: nil, then: ("grace", "treatment", (1, 1)))

        let report = try ExperimentReport(
            traces: [try Trace.parse(first.text, file: "a"), try Trace.parse(second.text, file: "b")], goal: "done")

        let variants = try #require(report.experiments.first?.variants)
        #expect(variants.map(\.exposed) == [1, 1])
        #expect(variants.map(\.reached) == [0, 1])
        #expect(report.traces == ["a", "b"])
    }

    @Test func jsonHasEveryFigure() throws {
        let json = try ExperimentReport(traces: [try Self.fixedTrace()], goal: "done").json

        #expect(json["goal"] == "done")
        #expect(json["errors"] == [])
        let experiment = try #require(json["experiments"]?[0])
        #expect(experiment["name"] == "e")
        #expect(experiment["exposed"] == 22)
        #expect(experiment["variants"]?[1]?["reached"] == 9)
        #expect(experiment["variants"]?[0]?["medianTimeNs"] == 3_000_000)
        #expect(experiment["comparisons"]?[0]?["p"]?.double.map { abs($0 - 0.096401) < 1e-6 } == true)
        #expect(experiment["sampleRatio"]?["degreesOfFreedom"] == 1)
    }

    @Test func tenThousandSubjectsSplitAsTheWeightsSayWithinTheExpectedSpread() throws {
        let manifest = try Manifest.load(path: Repository.path("manifests/experiment.json"))
        var experiment = try #require(manifest.experiments["create-flow"])
        let subjects = SubjectRunner.subjects(10_000)
        #expect(subjects.first == "subject-0001" && subjects.last == "subject-10000")

        for weights in [[50, 50], [70, 30], [1, 1, 2]] {
            experiment.variants = weights.enumerated().map { index, weight in
                .init(name: "v\(index)", plugin: "catalog", manager: "CreateItem", weight: weight)
            }
            var counts: [String: Int] = [:]
            for subject in subjects {
                counts[ExperimentAssigner.variant(of: subject, in: experiment).name, default: 0] += 1
            }
            let total = Double(weights.reduce(0, +))
            for (index, weight) in weights.enumerated() {
                // Binomial: within four standard deviations of n·w, √(n·w·(1 − w)), unless the hash is biased.
                let share = Double(weight) / total
                let spread = 4 * (10_000 * share * (1 - share)).squareRoot()
                let count = Double(counts["v\(index)"] ?? 0)
                #expect(abs(count - 10_000 * share) <= spread, "weights \(weights): v\(index) got \(count)")
            }
            let fit = Statistics.chiSquareGoodnessOfFit(
                observed: weights.indices.map { counts["v\($0)"] ?? 0 }, weights: weights.map(Double.init))
            #expect(fit.p >= ExperimentReport.mismatchThreshold, "weights \(weights): \(counts)")
        }
    }

    @Test func scriptsNameTheirGoalAndSubjectsReplaceThePlaceholder() {
        #expect(
            SubjectRunner.goal(in: ["expect top welcome", "  #  goal: catalog.detail", "# goal: other"])
                == "catalog.detail")
        #expect(SubjectRunner.goal(in: ["# goal:", "# goals: x", "act save"]) == nil)
        #expect(
            SubjectRunner.substituting("subject-0007", in: #"act submit {"user": "$SUBJECT", "id": "$SUBJECT"}"#)
                == #"act submit {"user": "subject-0007", "id": "subject-0007"}"#)
        #expect(SubjectRunner.subjects(3) == ["subject-0001", "subject-0002", "subject-0003"])
    }

    /// With --json, a wrong command line (exit 64: no goal, goals that differ, a trace given twice) gives the
    /// document a report gives, with no experiment, as a missing trace does, where it gave only `errors`.
    @Test func aUsageErrorWithJSONGivesTheReportsDocument() throws {
        let directory = try TemporaryDirectory()
        let one = try directory.file("one.jsonl", containing: TraceText(weights: [1], goal: "a").text)
        let other = try directory.file("other.jsonl", containing: TraceText(weights: [1], goal: "b").text)
        let goalless = try directory.file("goalless.jsonl", containing: TraceText(weights: [1], goal: nil).text)

        for (files, goal) in [([one, other], nil), ([goalless], nil), ([one, one], "a" as String?)] {
            let run = try Subprocess.flowhost(
                ["experiments", "report", "--json"] + files + (goal.map { ["--goal", $0] } ?? []))

            #expect(run.status == 64, "\(files)")
            let document = try JSONValue(parsing: run.standardOutput)
            #expect(document["experiments"] == [], "\(document)")
            #expect(document["warnings"] == [])
            #expect(document["traces"] == .array(files.map(JSONValue.string)))
            #expect(document["goal"] == (goal.map(JSONValue.string) ?? .null))
            #expect(document["errors"]?[0]?["kind"] == "usage")
        }
    }

    /// A run killed before it wrote its header leaves an empty trace: among others it is left out with a
    /// warning naming it (exit 0), where it failed the whole report (65, "the trace is empty"); alone, or
    /// with only empty ones, it is still that error.
    @Test func anEmptyTraceAmongOthersIsLeftOutWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let trace = try directory.file("one.jsonl", containing: TraceText(weights: [1], goal: "a").text)
        let empty = try directory.file("killed.jsonl", containing: "")
        let blank = try directory.file("blank.jsonl", containing: "\n")
        let warning = "\(empty) is empty (a run killed before it wrote its header): the report leaves it out"

        let report = try Subprocess.flowhost(["experiments", "report", empty, trace])
        let json = try Subprocess.flowhost(["experiments", "report", trace, empty, "--json"])
        let alone = try Subprocess.flowhost(["experiments", "report", empty])
        let onlyEmpty = try Subprocess.flowhost(["experiments", "report", empty, blank])

        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.errorLines.first == "flowhost: warning: \(warning)", "\(report.standardError)")
        #expect(report.standardOutput.contains("1 trace (\(trace))"), "\(report.standardOutput)")
        #expect(json.status == 0, "\(json.standardError)")
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(document["traces"] == [.string(trace)])
        #expect(document["warnings"]?[0] == .string(warning))
        #expect(alone.status == 65)
        #expect(onlyEmpty.status == 65)
        #expect(onlyEmpty.errorLines.first?.hasPrefix("flowhost: \(empty): the trace is empty") == true)
    }

    @Test func subjectsNeedAScriptAndACount() throws {
        let noScript = try Subprocess.flowhost(["run", "manifests/experiment.json", "--subjects", "3"])
        #expect(noScript.status == 64)
        #expect(noScript.errorLines.first == "flowhost: --subjects needs --script FILE: the script each subject runs")
        let zero = try Subprocess.flowhost(
            ["run", "manifests/experiment.json", "--subjects", "0", "--script", "manifests/experiment.flow"])
        #expect(zero.status == 64)
        let missing = try Subprocess.flowhost(["experiments", "report", "--json", "missing.jsonl"])
        #expect(missing.status == 66)
        #expect(missing.standardError.isEmpty, "with --json, the error is in the document")
        // The document a report would be, with no experiment, and the error as every --json command's are.
        #expect(
            try JSONValue(parsing: missing.standardOutput) == [
                "errors": [
                    ["file": "missing.jsonl", "kind": "trace", "message": "trace file not found", "path": .null]
                ],
                "experiments": [], "goal": .null, "traces": ["missing.jsonl"], "warnings": [],
            ])

        let directory = try TemporaryDirectory()
        let goalless = try directory.file("goalless.jsonl", containing: TraceText(weights: [1], goal: nil).text)
        let noGoal = try Subprocess.flowhost(["experiments", "report", goalless])
        #expect(noGoal.status == 64)
        #expect(
            noGoal.errorLines.first
                == "flowhost: --goal REQUEST is needed: the traces' scripts name no goal (# goal: REQUEST)")

        // The demo's trace: no goal, and no experiment to report on either.
        let demo = try directory.file(
            "demo.jsonl",
            containing: #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"experiments":{}}"# + "\n")
        let nothing = try Subprocess.flowhost(["experiments", "report", demo])
        #expect(nothing.status == 64)
        #expect(
            nothing.errorLines.first
                == "flowhost: --goal REQUEST is needed: the traces' scripts name no goal (# goal: REQUEST); their manifests declare no experiments either, so there may be nothing to report"
        )
    }
}
