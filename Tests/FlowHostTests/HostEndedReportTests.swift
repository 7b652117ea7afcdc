import FlowKit
import Testing

@testable import FlowTraces

/// `experiments report` of a supervised run's trace, where a host ended (`hostEnded`) and one restarted at the
/// snapshot carried the session on: a variant whose request was under way when the host crashed or hung failed,
/// as one whose manager threw did; and the restarted host's restore, the input after, is no step of the
/// person's.
struct HostEndedReportTests {
    @Test func theRequestsUnderWayWhenTheHostEndedFailedForTheirVariant() throws {
        var trace = SupervisedTraceText()
        // Crashed in the variant's manager, under way.
        trace.session(
            "c0", "crashy",
            [
                #""handling","requestId":6,"request":"create","manager":"crashy.Trap","experiment":"e","variant":"crashy","depth":0"#,
                #""hostEnded","ending":"crash","plugin":"crashy","error":"s.flow:4: crashed","restarting":true"#,
            ], restore: true)
        // Hung before the request came (loading the variant's plugin): the exposure's request never came.
        trace.session(
            "c1", "crashy", [#""hostEnded","ending":"hang","plugin":"crashy","error":"hung","restarting":false"#])
        // Ended with the request done: nothing failed.
        trace.session(
            "k0", "control",
            [
                #""handling","requestId":6,"request":"create","manager":"p.M","experiment":"e","variant":"control","depth":0"#,
                #""handled","requestId":6,"request":"create","depth":0"#,
                #""hostEnded","ending":"crash","plugin":"other","error":"x","restarting":true"#,
            ])
        // Stopped with the request under way, and no plugin to lay it at.
        trace.session(
            "k1", "control",
            [
                #""handling","requestId":6,"request":"create","manager":"p.M","experiment":"e","variant":"control","depth":0"#,
                #""hostEnded","ending":"stop","error":"stopped","restarting":false"#,
            ])

        let report = try ExperimentReport(traces: [try Trace.parse(trace.text, file: "t.jsonl")], goal: "done")

        #expect(report.experiments.first?.variants.map(\.failed) == [1, 2])
        #expect(
            report.warnings == [
                "experiment 'e' variant 'control' failed for 1 of its 2 exposed subjects (create: the host was stopped): its figures measure the failure for those subjects, not the variant",
                "experiment 'e' variant 'crashy' failed for 2 of its 2 exposed subjects (create: the host crashed in plugin 'crashy'): its figures measure the failure, not the variant",
            ])
    }

    @Test func aHostThatHungBeforeTheRequestCameSaysHowWithoutTheRequest() throws {
        var trace = SupervisedTraceText()
        trace.session("c1", "crashy", [#""hostEnded","ending":"hang","plugin":"crashy","error":"x","restarting":true"#])
        trace.session("c2", "control", [#""hostEnded","ending":"exit","error":"x","restarting":true"#])
        trace.session("c3", "control", [#""hostEnded","ending":"cap","error":"x","restarting":true"#])

        let report = try ExperimentReport(traces: [try Trace.parse(trace.text, file: "t.jsonl")], goal: "done")

        let variants = try #require(report.experiments.first?.variants)
        #expect(
            variants.map(\.firstFailure) == [
                ExperimentReport.RequestFailure(request: nil, error: "the host exited"),
                ExperimentReport.RequestFailure(request: nil, error: "the host hung in plugin 'crashy'"),
            ])
        #expect(
            report.warnings.last
                == "experiment 'e' variant 'crashy' failed for 1 of its 1 exposed subjects (the host hung in plugin 'crashy'): its figures measure the failure, not the variant"
        )
    }

    @Test func theRestoreAfterARestartIsNoStepToTheGoal() throws {
        var trace = SupervisedTraceText()
        // Exposed at input 1, crashed there, restored at input 2, the goal at input 3: two steps of the
        // person's.
        trace.session(
            "c0", "crashy",
            [#""hostEnded","ending":"crash","plugin":"crashy","error":"x","restarting":true"#], restore: true,
            goalAfter: true)
        // A host that ended with no restart: the session's next input (a new host's start) is its own.
        trace.session(
            "k0", "control",
            [#""hostEnded","ending":"exit","error":"x","restarting":false"#], restore: false, goalAfter: true)

        let report = try ExperimentReport(traces: [try Trace.parse(trace.text, file: "t.jsonl")], goal: "done")

        let variants = try #require(report.experiments.first?.variants)
        #expect(variants.map(\.reached) == [1, 1])
        #expect(variants.map(\.medianSteps) == [2, 2])
        // The time is what the person waited, the restart included.
        #expect(variants.map(\.medianTimeNanoseconds) == [998, 998])
    }
}

// MARK: - Test Helpers

/// A trace of experiment `e` (variants `control` and `crashy`) from a supervised run, written a session at a
/// time.
private struct SupervisedTraceText {
    private var lines = [
        #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"experiments":{"e":{"subject":"user.id","salt":"s","variants":[{"name":"control","plugin":"p","manager":"M","weight":50},{"name":"crashy","plugin":"crashy","manager":"Trap","weight":50}]}}}"#
    ]
    private var number = 0

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// A session that exposes `subject` to `variant` at input 1, then has `events` (each its kind and members)
    /// in that input. With `restore`, input 2 is a restarted host's restore, replaying a request handled before;
    /// with `goalAfter`, the next input after it handles the goal, 998 ns after the exposure.
    mutating func session(
        _ subject: String, _ variant: String, _ events: [String], restore: Bool = false, goalAfter: Bool = false
    ) {
        number += 1
        let time = number * 10_000
        func line(_ kind: String, _ input: Int, _ at: Int) {
            lines.append(#"{"kind":\#(kind),"t":\#(time + at),"session":\#(number),"input":\#(input)}"#)
        }
        lines.append(#"{"kind":"session","t":\#(time),"session":\#(number),"input":0,"subject":"\#(subject)"}"#)
        line(#""input","command":"act create""#, 1, 1)
        line(#""exposure","subject":"\#(subject)","experiment":"e","variant":"\#(variant)","depth":0"#, 1, 2)
        for (index, event) in events.enumerated() { line(event, 1, 3 + index) }
        var next = 2
        if restore {
            line(#""input","command":"restore the snapshot saved before the crash""#, 2, 100)
            line(#""handling","requestId":1,"request":"launch","manager":"p.Launch","depth":0"#, 2, 101)
            line(#""handled","requestId":1,"request":"launch","depth":0"#, 2, 102)
            next = 3
        }
        if goalAfter {
            line(#""input","command":"send done""#, next, 999)
            line(#""handling","requestId":9,"request":"done","manager":"p.Done","depth":0"#, next, 1_000)
            line(#""handled","requestId":9,"request":"done","depth":0"#, next, 1_000)
        }
    }
}
