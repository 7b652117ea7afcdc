import FlowKit
import Testing

@testable import FlowTraces

/// A trace's `t` is a whole number of nanoseconds from 0 to 2^53 - 1, the largest a JSON number holds exactly
/// (docs/traces.md): one past it is refused with the file, the line and the limit, rather than read as
/// another number than written (past 2^53) or refused as not a whole number (past `Int.max`).
@MainActor
struct TraceTimeRangeTests {
    static let limit =
        #"the 'exposure' event needs "t", a whole number of nanoseconds from 0 to 9007199254740991 (2^53 - 1, about 104 days): the largest a JSON number holds exactly"#

    static func exposure(t: String) -> String {
        #"{"kind":"exposure","t":\#(t),"session":1,"input":0,"experiment":"e","variant":"a","subject":"ada"}"#
    }

    @Test func theLargestTimeReads() throws {
        let event = try TraceEvent(json: try JSONValue(parsing: Self.exposure(t: "9007199254740991")))

        #expect(event.time == TraceEvent.maxTime)
        #expect(TraceEvent.maxTime == 9_007_199_254_740_991)
    }

    @Test(arguments: ["9007199254740992", "9223372036854775808", "18446744073709551615", "1e30", "1.5", "-1"])
    func aTimeOutOfRangeIsRefusedNamingTheLimit(t: String) throws {
        #expect(throws: TraceError(Self.limit)) {
            try TraceEvent(json: try JSONValue(parsing: Self.exposure(t: t)))
        }
    }

    @Test func flowhostRefusesATimePastTheLimitWithTheFileAndLine() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "late.jsonl",
            containing: [
                #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done"}"#,
                #"{"kind":"session","t":1,"session":1,"input":0,"subject":"ada"}"#,
                Self.exposure(t: "18446744073709551615"),
            ].joined(separator: "\n") + "\n")

        let report = try Subprocess.flowhost(["experiments", "report", path])

        #expect(report.status == 65)
        #expect(report.errorLines == ["flowhost: \(path):3: \(Self.limit)"])
    }
}
