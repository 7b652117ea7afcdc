import FlowKit
import Testing

@testable import FlowTraces

/// A trace's `t` is a whole number of nanoseconds below 2^63 (docs/traces.md), read exactly up to 2^53 - 1 and
/// within a few microseconds after (a JSON number is a double), as a recording longer than 104 days writes them:
/// one past it is refused with the file, the line and the bound, rather than as not a whole number.
@MainActor
struct TraceTimeRangeTests {
    static let limit =
        #"the 'exposure' event needs "t", a whole number of nanoseconds from 0 to below 2^63 (about 292 years)"#

    static func exposure(t: String) -> String {
        #"{"kind":"exposure","t":\#(t),"session":1,"input":0,"experiment":"e","variant":"a","subject":"ada"}"#
    }

    @Test func timesPastWhatADoubleHoldsExactlyRead() throws {
        let exact = try TraceEvent(json: try JSONValue(parsing: Self.exposure(t: "9007199254740991")))
        let later = try TraceEvent(json: try JSONValue(parsing: Self.exposure(t: "9007199254740993")))
        let latest = try TraceEvent(json: try JSONValue(parsing: Self.exposure(t: "9223372036854774784")))

        #expect(exact.time == 9_007_199_254_740_991)
        #expect(later.time == 9_007_199_254_740_992)  // The nearest double.
        #expect(latest.time == 9_223_372_036_854_774_784)
    }

    @Test(arguments: ["9223372036854775808", "18446744073709551615", "1e30", "1.5", "-1"])
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
