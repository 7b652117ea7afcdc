import FlowKit
import Testing

@testable import FlowTraces

/// The goal handled at an earlier `t` or `input` than the exposure before it in its session (a trace edited
/// by hand, or its lines reordered) is refused with the file and the line, exit 65, as interleaved sessions
/// are: the time or steps to the goal would be negative, and were a wrapped-around number of nanoseconds.
@MainActor
struct GoalBeforeExposureTests {
    static let header = #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done"}"#

    /// A session that exposes `ada` at t 5000, input 1, and then handles the goal at `goal`.
    static func text(goal: (t: Int, input: Int)) -> String {
        [
            header,
            #"{"kind":"session","t":4000,"session":1,"input":0,"subject":"ada"}"#,
            #"{"kind":"input","t":4500,"session":1,"input":1,"command":"act create"}"#,
            #"{"kind":"exposure","t":5000,"session":1,"input":1,"experiment":"e","variant":"a","subject":"ada"}"#,
            #"{"kind":"handled","t":\#(goal.t),"session":1,"input":\#(goal.input),"request":"done"}"#,
        ].joined(separator: "\n") + "\n"
    }

    static func message(goal: (t: Int, input: Int)) -> String {
        "the goal 'done' was handled at t \(goal.t) (input \(goal.input)), before subject 'ada' was exposed to experiment 'e' at t 5000 (input 1) on a line before: a session's times and inputs only grow as flowhost writes them, so the trace was edited or its lines reordered; give each trace as it was recorded"
    }

    @Test(arguments: [(t: 4_000, input: 1), (t: 6_000, input: 0)])
    func aGoalBeforeItsExposureIsRefusedWithItsLine(goal: (t: Int, input: Int)) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("edited.jsonl", containing: Self.text(goal: goal))

        let text = try Subprocess.flowhost(["experiments", "report", path])
        let json = try Subprocess.flowhost(["experiments", "report", path, "--json"])

        #expect(text.status == 65)
        #expect(text.errorLines == ["flowhost: \(path):5: \(Self.message(goal: goal))"])
        #expect(text.standardOutput.isEmpty)
        #expect(json.status == 65)
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(document["experiments"] == [])
        #expect(document["errors"]?[0]?["message"]?.string == "line 5: \(Self.message(goal: goal))")
    }

    @Test func aReportOfTracesReadWholeRefusesItToo() throws {
        let trace = try Trace.parse(Self.text(goal: (4_000, 1)), file: "edited.jsonl")

        #expect(throws: TraceError(Self.message(goal: (4_000, 1)), file: "edited.jsonl")) {
            try ExperimentReport(traces: [trace], goal: "done")
        }
    }

    @Test func aGoalAtTheSameTimeAndInputAsItsExposureCounts() throws {
        let trace = try Trace.parse(Self.text(goal: (5_000, 1)), file: "same.jsonl")

        let variant = try #require(
            try ExperimentReport(traces: [trace], goal: "done").experiments.first?.variants.first)

        #expect(variant.reached == 1)
        #expect(variant.medianSteps == 1)
        #expect(variant.medianTimeNanoseconds == 0)
    }

    /// Goals in a session of several experiments: each credits the subject exposed last to each experiment
    /// that has not reached it yet, once; one handled before the latest exposure read is refused, naming it.
    @Test func goalsCreditEachExperimentsLastSubjectOnceAndOneBeforeTheLatestExposureIsRefused() throws {
        func line(_ t: Int, _ input: Int, _ members: String) -> String {
            #"{"t":\#(t),"session":1,"input":\#(input),\#(members)}"#
        }
        func exposure(_ t: Int, _ input: Int, _ experiment: String, _ subject: String) -> String {
            line(t, input, #""kind":"exposure","experiment":"\#(experiment)","variant":"a","subject":"\#(subject)""#)
        }
        func goal(_ t: Int, _ input: Int) -> String { line(t, input, #""kind":"handled","request":"done""#) }
        let session = [Self.header, #"{"kind":"session","t":1,"session":1,"input":0}"#]
        let credited =
            session + [
                exposure(10, 1, "e", "ada"), exposure(20, 2, "f", "bob"), goal(30, 3),
                exposure(40, 4, "e", "cy"), goal(50, 5),
            ]
        let refused = session + [exposure(10, 1, "e", "ada"), exposure(90, 2, "f", "bob"), goal(80, 3)]

        let report = try ExperimentReport(
            traces: [try Trace.parse(credited.joined(separator: "\n"), file: "t.jsonl")], goal: "done")

        #expect(report.experiments.map(\.name) == ["e", "f"])
        // ada 3 steps and cy 2 on e; bob 2 on f, credited once.
        #expect(report.experiments.map { $0.variants.map(\.reached) } == [[2], [1]])
        #expect(report.experiments.map { $0.variants.map(\.medianSteps) } == [[2.5], [2]])
        let error = #expect(throws: TraceError.self) {
            try ExperimentReport(
                traces: [try Trace.parse(refused.joined(separator: "\n"), file: "r.jsonl")], goal: "done")
        }
        #expect(error?.message.contains("before subject 'bob' was exposed to experiment 'f' at t 90 (input 2)") == true)
    }
}
