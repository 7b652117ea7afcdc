import FlowKit
import Testing

@testable import FlowTraces

/// `experiments report` of a variant whose request failed: a variant naming a manager its plugin does not
/// export (a typo, a plugin rebuilt without it) is not noticed at start when its plugin loads lazily, every
/// subject it is given gets a failed request, and the report showed the arm as 0% conversion with no word that
/// it never worked. It warns, once per variant, how many of its subjects' requests failed, and the first error.
@MainActor
struct FailedVariantReportTests {
    /// The bundled experiment, with `manager` of its manifest renamed `typo`, run for 20 subjects into a
    /// trace: the run stops at the first subject whose request fails. Returns the trace's path and the
    /// manifest's, which the failure names with the place of the variant's manager.
    private static func run(
        in directory: TemporaryDirectory, renaming manager: String, to typo: String
    ) throws -> (trace: String, manifest: String) {
        let text = try readText(Repository.path("manifests/experiment.json"))
        let broken = text.replacing(#""manager": "\#(manager)""#, with: #""manager": "\#(typo)""#)
        try #require(broken != text)
        let manifest = try directory.file("experiment.json", containing: broken)
        let trace = directory.path + "/t.jsonl"
        let run = try Subprocess.flowhost([
            "run", manifest, "--subjects", "20", "--script", Repository.path("manifests/experiment.flow"),
            "--quiet", "--trace", trace,
        ])
        #expect(run.status == 1, "the script stops at the failed request: \(run.standardError)")
        return (trace, manifest)
    }

    @Test func aVariantWhoseManagerItsPluginDoesNotExportIsSaidToHaveFailed() throws {
        let directory = try TemporaryDirectory()
        let (trace, manifest) = try Self.run(in: directory, renaming: "ExpressCreate", to: "ExpressCreat")

        let report = try Subprocess.flowhost(["experiments", "report", trace])
        let json = try Subprocess.flowhost(["experiments", "report", trace, "--json"])

        // subject-0001 is the first exposed, to express, and the run stops there.
        let warnings = [
            "\(trace) holds 1 of the 20 subjects its run was to simulate: the run stopped at the first subject whose script failed",
            "no request named 'catalog.detail' was handled in these traces, so nobody reached it",
            "experiment 'create-flow' variant 'express' failed for 1 of its 1 exposed subjects (catalog.create: \(manifest): experiments[\"create-flow\"].variants[1].manager: plugin 'express' exports no manager 'ExpressCreat' (did you mean 'ExpressCreate'?); it exports: ExpressCreate): its figures measure the failure, not the variant",
        ]
        #expect(report.status == 0)
        #expect(report.errorLines == warnings.map { "flowhost: warning: \($0)" })
        #expect(json.status == 0)
        #expect(try JSONValue(parsing: json.standardOutput)["warnings"] == .array(warnings.map(JSONValue.string)))
    }

    /// The variant that worked is not warned of; the one that failed is, beside it.
    @Test func aVariantThatWorksIsNotWarnedOf() throws {
        let directory = try TemporaryDirectory()
        let (trace, manifest) = try Self.run(in: directory, renaming: "CreateItem", to: "CreateIte")

        let report = try Subprocess.flowhost(["experiments", "report", trace])

        // subject-0001 and subject-0002 are exposed to express and reach the goal; subject-0003, to classic,
        // stops the run.
        #expect(report.status == 0)
        #expect(
            report.errorLines == [
                "flowhost: warning: \(trace) holds 3 of the 20 subjects its run was to simulate: the run stopped at the first subject whose script failed",
                "flowhost: warning: experiment 'create-flow' variant 'classic' failed for 1 of its 1 exposed subjects (catalog.create: \(manifest): experiments[\"create-flow\"].variants[0].manager: plugin 'catalog' exports no manager 'CreateIte' (did you mean 'CreateItem'?); it exports: AddItem, CreateItem, Home, ItemDetail, ItemList, QuickCreate): its figures measure the failure, not the variant",
            ])
        #expect(
            report.standardOutput.contains("  express  50      2        2        100.0%"), "\(report.standardOutput)")
    }

    /// The bundled experiment as it is: no variant fails, and nothing is warned of.
    @Test func variantsThatWorkAreNotWarnedOf() throws {
        let directory = try TemporaryDirectory()
        let trace = directory.path + "/t.jsonl"
        let run = try Subprocess.flowhost([
            "run", Repository.path("manifests/experiment.json"), "--subjects", "4",
            "--script", Repository.path("manifests/experiment.flow"), "--quiet", "--trace", trace,
        ])
        #expect(run.status == 0, "\(run.standardError)")

        let report = try Subprocess.flowhost(["experiments", "report", trace])

        #expect(report.status == 0)
        #expect(report.errorLines == [])
    }

    /// A manager that was made and then failed counts as a manager that could not be made does; a request
    /// that fails inside the variant's, or a subject whose request fails twice, does not count again.
    @Test func aRequestRoutedToAVariantCountsOncePerSubjectWhereverItFailed() throws {
        var trace = HandWrittenTrace()
        let create = #""requestId":2,"request":"create""#
        func handling(_ variant: String) -> String {
            #""handling",\#(create),"from":"list","manager":"p.M","experiment":"e","variant":"\#(variant)""#
        }
        // The manager could not be made: `failed` straight after the exposure, naming no experiment or variant.
        trace.session("c0", "control", [#""failed",\#(create),"from":"list","error":"no manager 'M'""#])
        trace.session("c1", "control", [handling("control"), #""handled",\#(create)"#])
        // Made, then failed; the same subject again in a later session; a request inside it that fails.
        trace.session("t0", "treatment", [handling("treatment"), #""failed",\#(create),"error":"boom""#])
        trace.session("t0", "treatment", [handling("treatment"), #""failed",\#(create),"error":"again""#])
        trace.session(
            "t1", "treatment",
            [
                handling("treatment"),
                #""failed","requestId":3,"request":"create.form","from":"create","error":"inner","depth":1"#,
                #""handled",\#(create)"#,
            ])
        trace.session("t2", "treatment", [handling("treatment"), #""handled",\#(create)"#])

        let report = try ExperimentReport(traces: [try Trace.parse(trace.text, file: "failed.jsonl")], goal: "done")

        let warnings = [
            "experiment 'e' variant 'control' failed for 1 of its 2 exposed subjects (create: no manager 'M'): its figures measure the failure for those subjects, not the variant",
            "experiment 'e' variant 'treatment' failed for 1 of its 3 exposed subjects (create: boom): its figures measure the failure for those subjects, not the variant",
        ]
        #expect(report.experiments.first?.variants.map(\.failed) == [1, 1])
        #expect(report.warnings == warnings)
        #expect(report.json["warnings"] == .array(warnings.map(JSONValue.string)))
    }
}

/// A trace of experiment `e` (variants `control` and `treatment`), written a session at a time with the events
/// flowhost writes about requests.
private struct HandWrittenTrace {
    private var lines = [
        #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done","experiments":{"e":{"subject":"user.id","salt":"s","variants":[{"name":"control","plugin":"p","manager":"M","weight":50},{"name":"treatment","plugin":"p","manager":"M","weight":50}]}}}"#
    ]
    private var number = 0

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// A session that exposes `subject` to `variant` at input 1, then has `events` (each its kind and members,
    /// at depth 0 unless it says) in that input.
    mutating func session(_ subject: String, _ variant: String, _ events: [String]) {
        number += 1
        let time = number * 1_000
        let at = #""session":\#(number),"input":1"#
        lines.append(#"{"kind":"session","t":\#(time),"session":\#(number),"input":0,"subject":"\#(subject)"}"#)
        lines.append(#"{"kind":"input","t":\#(time + 1),\#(at),"command":"act create"}"#)
        lines.append(
            #"{"kind":"exposure","t":\#(time + 2),\#(at),"subject":"\#(subject)","experiment":"e","variant":"\#(variant)","depth":0}"#
        )
        for (index, event) in events.enumerated() {
            let depth = event.contains(#""depth":"#) ? "" : #","depth":0"#
            lines.append(#"{"kind":\#(event),"t":\#(time + 3 + index),\#(at)\#(depth)}"#)
        }
    }
}
