import FlowKit
import Testing

@testable import FlowTraces

/// flowhost writes each session's lines together; a file whose sessions are interleaved (traces merged line
/// by line) is refused, naming the line, by `experiments report`, `replay` and `graph --trace` alike. Grouped
/// as they come, its lines made a session of their own at every switch, apart from their inputs: the report
/// counted nobody exposed and warned that no request named the goal was handled.
@MainActor
struct InterleavedSessionsTests {
    @Test func sessionsInterleavedLineByLineAreRefusedAtTheFirstLineThatGoesBack() throws {
        let directory = try TemporaryDirectory()
        let one = Self.session(1, subject: "ada", variant: "control")
        let two = Self.session(2, subject: "bob", variant: "treatment")
        // Line 4 is session 1's input, after session 2 began on line 3.
        let interleaved = try directory.file(
            "interleaved.jsonl", containing: Self.trace(zip(one, two).flatMap { [$0, $1] }))
        let message =
            "an event of session 1 ('input') after session 2 began: flowhost writes each session's lines together, so this file's sessions are interleaved (traces merged line by line?); give each trace as it was recorded"

        let report = #expect(throws: TraceError.self) {
            try ExperimentReport.read(
                [interleaved], headers: try TraceReader.headers(of: [interleaved]), goal: "done")
        }
        #expect(report == TraceError(message, file: interleaved, line: 4))
        #expect(throws: TraceError(message, file: interleaved, line: 4)) { try Trace.load(path: interleaved) }
        #expect(throws: TraceError(message, file: interleaved, line: 4)) {
            try TraceReader(path: interleaved).readToEnd()
        }
        let run = try Subprocess.flowhost(["experiments", "report", interleaved])
        #expect(run.status == 65)
        #expect(run.errorLines == ["flowhost: \(interleaved):4: \(message)"])
        let documented = try readText(Repository.path("docs/traces.md")).split(whereSeparator: \.isWhitespace)
            .joined(separator: " ")
        #expect(documented.contains("`flowhost: m.jsonl:4: \(message)`"), "docs/traces.md quotes the message")

        // The same lines, a session after the other, report both subjects reaching the goal; so do traces
        // joined whole (`cat a.jsonl b.jsonl`), whose second header begins anew.
        let third = Self.session(1, subject: "cy", variant: "treatment")
        let sequential = try directory.file(
            "sequential.jsonl", containing: Self.trace(one + two + [Self.header] + third))
        let figures = try ExperimentReport.read(
            [sequential], headers: try TraceReader.headers(of: [sequential]), goal: "done")
        #expect(figures.experiments.first?.variants.map(\.reached) == [1, 2])
        // The second header begins no session of its own (a replay said it replayed one more, with no input).
        #expect(try Trace.load(path: sequential).sessions.map(\.number) == [1, 2, 1])
        #expect(try TraceReader(path: sequential).readToEnd() == 3)
    }

    /// Two traces merged whose sessions have the same numbers: the second `session 1` line is the first sign.
    @Test func aSessionThatBeginsASecondTimeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let first = Self.session(1, subject: "ada", variant: "control")
        let second = Self.session(1, subject: "ada", variant: "treatment")
        let merged = try directory.file(
            "merged.jsonl", containing: Self.trace(zip(first, second).flatMap { [$0, $1] }))

        let error = #expect(throws: TraceError.self) { try Trace.load(path: merged) }

        #expect(error?.line == 3)
        #expect(error?.message.hasPrefix("session 1 begins a second time: flowhost writes each session's") == true)
    }

    /// A trace of two sessions merged line by line with one of one session: session 1 begins again after
    /// session 2, with a number that goes down. Read on, the report left out the session read last as cut
    /// short, where the report's SQL left out the highest-numbered one.
    @Test func aSessionThatBeginsAfterALaterOneIsRefused() throws {
        let directory = try TemporaryDirectory()
        let first = Self.session(1, subject: "ada", variant: "control")
        let second = Self.session(2, subject: "bob", variant: "control")
        let merged = try directory.file(
            "merged.jsonl",
            containing: Self.trace(first + second + Self.session(1, subject: "cy", variant: "treatment")))
        let line = 2 + first.count + second.count
        let message =
            "session 1 begins after session 2: flowhost writes each session's lines together, so this file's sessions are interleaved (traces merged line by line?); give each trace as it was recorded"

        #expect(throws: TraceError(message, file: merged, line: line)) { try Trace.load(path: merged) }
        #expect(throws: TraceError(message, file: merged, line: line)) { try TraceReader(path: merged).readToEnd() }
        let run = try Subprocess.flowhost(["experiments", "report", merged])
        #expect(run.status == 65)
        #expect(run.errorLines == ["flowhost: \(merged):\(line): \(message)"])
    }

    // MARK: - Test Helpers

    private static let header =
        #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done","experiments":{"e":{"subject":"user.id","salt":"s","variants":[{"name":"control","plugin":"p","manager":"M","weight":50},{"name":"treatment","plugin":"p","manager":"M","weight":50}]}}}"#

    /// The text of a trace: the header, then `lines`.
    private static func trace(_ lines: [String]) -> String {
        ([header] + lines).joined(separator: "\n") + "\n"
    }

    /// The five lines of a session in which `subject` is exposed to `variant` and reaches the goal, `done`.
    private static func session(_ number: Int, subject: String, variant: String) -> [String] {
        let at = #""session":\#(number),"input":1"#
        return [
            #"{"kind":"session","t":\#(number)0,"session":\#(number),"input":0,"subject":"\#(subject)"}"#,
            #"{"kind":"input","t":\#(number)1,\#(at),"command":"act create"}"#,
            #"{"kind":"exposure","t":\#(number)2,\#(at),"experiment":"e","subject":"\#(subject)","variant":"\#(variant)"}"#,
            #"{"kind":"handled","t":\#(number)3,\#(at),"request":"done","from":"list","manager":"p.D"}"#,
            #"{"kind":"screen","t":\#(number)4,\#(at),"status":"ok"}"#,
        ]
    }
}
