import FlowKit
import Testing

@testable import FlowTraces

/// A sample-ratio test needs two variants of positive weight: with one (an experiment of one variant, or one
/// the traces' manifests do not set up, whose variants all weigh 0) the chi-square has no degree of freedom,
/// and the report says there is no test rather than print `chi-square inf, 0 df` or shout a mismatch; unless
/// subjects were exposed to a variant of weight 0, which is a mismatch however many variants have a weight.
@MainActor
struct UntestedSampleRatioTests {
    /// A header whose experiment `e` has the one variant `only`, then three subjects exposed to it (the last
    /// reaches the goal, so that no warning says nobody did), and three subjects exposed to variants `a` and
    /// `b` of `ghost`, an experiment no header sets up.
    static let text =
        [
            #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done","experiments":"#
                + #"{"e":{"subject":"user.id","salt":"s","variants":[{"name":"only","plugin":"p","manager":"M","weight":100}]}}}"#,
            session(1, "e", "only", "s1"), session(2, "e", "only", "s2"),
            session(3, "e", "only", "s3")
                + "\n" + #"{"kind":"handled","t":3003,"session":3,"input":1,"request":"done"}"#,
            session(4, "ghost", "a", "g1"), session(5, "ghost", "b", "g2"), session(6, "ghost", "a", "g3"),
        ].joined(separator: "\n") + "\n"

    @Test func anExperimentOfOneVariantHasNoSampleRatioTest() throws {
        let report = try ExperimentReport(traces: [try Trace.parse(Self.text, file: "one.jsonl")], goal: "done")

        let ratio = try #require(report.experiments.first { $0.name == "e" }?.sampleRatio)
        #expect(ratio.untested == "only one variant has a weight, so there is no ratio to check")
        #expect(ratio.p == nil && !ratio.isMismatch)
        #expect(
            report.lines.contains(
                "  sample ratio: 3 exposed for weights 100; no sample-ratio test: only one variant has a weight, so there is no ratio to check"
            ))
        #expect(!report.lines.contains { $0.contains("0 df") })
    }

    @Test func anExperimentNoManifestSetsUpHasNoSampleRatioTestAndNoMismatch() throws {
        let report = try ExperimentReport(traces: [try Trace.parse(Self.text, file: "one.jsonl")], goal: "done")

        let ratio = try #require(report.experiments.first { $0.name == "ghost" }?.sampleRatio)
        #expect(ratio.p == nil && !ratio.isMismatch)
        #expect(
            report.lines.contains(
                "  sample ratio: 2 : 1 exposed; no sample-ratio test: the traces' manifests do not set this experiment up, so no weights say what to expect"
            ))
        #expect(!report.lines.contains { $0.contains("MISMATCH") || $0.contains("chi-square inf") })
        #expect(report.warnings.isEmpty)
    }

    /// Weights 100 : 0 and subjects exposed to both: the variant of weight 0 should never have been given.
    @Test func exposuresToAVariantOfWeightZeroAreAMismatchWithOneWeightedVariant() throws {
        let header =
            #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done","experiments":"#
            + #"{"e":{"subject":"user.id","salt":"s","variants":[{"name":"control","plugin":"p","manager":"M","weight":100},"#
            + #"{"name":"off","plugin":"p","manager":"N","weight":0}]}}}"#
        let sessions = (1...6).map { Self.session($0, "e", $0.isMultiple(of: 2) ? "off" : "control", "s\($0)") }
        let text = ([header] + sessions).joined(separator: "\n") + "\n"
        let report = try ExperimentReport(traces: [try Trace.parse(text, file: "zero.jsonl")], goal: "done")

        let ratio = try #require(report.experiments.first?.sampleRatio)
        #expect(ratio.untested == nil)
        #expect(ratio.isMismatch)
        #expect(
            report.lines.contains(
                "  !! SAMPLE RATIO MISMATCH: 3 : 3 exposed for weights 100 : 0; subjects exposed to a variant of weight 0"
            ))
        #expect(report.warnings.contains { $0.contains("experiment 'e' has a sample ratio mismatch") })
    }

    @Test func flowhostPrintsNoTestAndItsJSONSaysWhy() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("one.jsonl", containing: Self.text)

        let text = try Subprocess.flowhost(["experiments", "report", path])
        let json = try Subprocess.flowhost(["experiments", "report", path, "--json"])

        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardError.isEmpty)
        #expect(
            text.outputLines.contains(
                "  sample ratio: 3 exposed for weights 100; no sample-ratio test: only one variant has a weight, so there is no ratio to check"
            ))
        #expect(json.status == 0, "\(json.standardError)")
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(document["warnings"] == [])
        let ratios = (document["experiments"]?.array ?? []).map { $0["sampleRatio"] ?? .null }
        #expect(ratios.count == 2)
        for ratio in ratios {
            #expect(ratio["tested"] == false)
            #expect(ratio["p"] == .null)
            #expect(ratio["mismatch"] == false)
            #expect(ratio["degreesOfFreedom"] == 0)
        }
        #expect(ratios.first?["reason"] == "only one variant has a weight, so there is no ratio to check")
    }

    @Test func aTestedSampleRatioSaysSoInJSON() throws {
        let ratio = try ExperimentReport(traces: [try ExperimentReportTests.fixedTrace()], goal: "done")
            .json["experiments"]?[0]?["sampleRatio"]

        #expect(ratio?["tested"] == true)
        #expect(ratio?["reason"] == .null)
        #expect(ratio?["p"]?.double != nil)
    }

    // MARK: - Test Helpers

    /// Session `number`: `subject` exposed to `variant` of `experiment`, who does not reach the goal.
    private static func session(_ number: Int, _ experiment: String, _ variant: String, _ subject: String) -> String {
        let t = number * 1_000
        return [
            #"{"kind":"session","t":\#(t),"session":\#(number),"input":0,"subject":"\#(subject)"}"#,
            #"{"kind":"input","t":\#(t + 1),"session":\#(number),"input":1,"command":"act create"}"#,
            #"{"kind":"exposure","t":\#(t + 2),"session":\#(number),"input":1,"experiment":"\#(experiment)","#
                + #""variant":"\#(variant)","subject":"\#(subject)"}"#,
        ].joined(separator: "\n")
    }
}
