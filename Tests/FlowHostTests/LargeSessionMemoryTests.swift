import Testing

/// A trace is anyone's text, and one session of it can be as large as its writer likes: `experiments report`
/// and the pass of `replay` that checks a trace before replaying it keep nothing of a session but the few
/// figures they need, so a session of any size is read in the same memory; `graph --trace` keeps one session
/// at a time, so a trace of any size is read in the memory of its largest session.
///
/// Each test runs `flowhost` with its data segment limited (`ulimit -d`, which since Linux 4.7 counts every
/// private writable mapping, `malloc`'s large blocks among them) to 64 MiB: a report keeping the session's
/// inputs takes about 160 MiB on this trace, and dies allocating. A sanitizer's shadow memory is such a
/// mapping too, so they do not run under one.
@Suite(.enabled(if: Sanitizer.current == nil, "a sanitizer's shadow memory counts against the limit"))
struct LargeSessionMemoryTests {
    /// The limit of the data segment, in KiB.
    static let dataLimit = 64 * 1_024

    /// One session of 2,000 inputs, each with a member of 2,500 numbers (10 MB of text, ten times as much
    /// once parsed): its subject is exposed at the start and reaches the goal, `done`, at the last input.
    static func largeSession() -> String {
        let pad = Array(repeating: "0", count: 2_500).joined(separator: ",")
        var text = #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done"}"# + "\n"
        text += #"{"kind":"session","t":1,"session":1,"input":0,"subject":"s"}"# + "\n"
        for input in 0..<2_000 {
            text += #"{"kind":"input","t":\#(input + 2),"session":1,"input":\#(input),"command":"act next","#
            text += #""pad":[\#(pad)]}"# + "\n"
            if input == 0 {
                text +=
                    #"{"kind":"exposure","t":3,"session":1,"input":0,"experiment":"e","variant":"a","subject":"s"}"#
                    + "\n"
            }
        }
        text += #"{"kind":"handled","t":9000,"session":1,"input":1999,"request":"done","requestId":1}"# + "\n"
        return text
    }

    /// `flowhost ARGUMENTS` with its data segment limited to `limit` KiB.
    static func limited(_ arguments: [String], limit: Int = dataLimit) throws -> Subprocess {
        try Subprocess.run(
            "/bin/sh",
            ["-c", #"ulimit -d \#(limit) && exec "$0" "$@""#, BuildProducts.path(of: "flowhost")]
                + arguments)
    }

    @Test func aReportReadsOneLargeSessionInLittleMemory() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("large.jsonl", containing: Self.largeSession())

        let report = try Self.limited(["experiments", "report", path])

        #expect(report.status == 0, "\(report.standardError.prefix(300))")
        // The subject reached the goal 2,000 steps after its exposure.
        #expect(
            report.outputLines.contains(
                "  a        0       1        1        100.0%      20.7% - 100.0%  2000          0.01 ms"),
            "\(report.standardOutput)")
    }

    @Test func aReplayChecksOneLargeSessionInLittleMemory() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("large.jsonl", containing: Self.largeSession() + "garbage\n")

        let replay = try Self.limited(["replay", path])

        #expect(replay.status == 65, "\(replay.standardError.prefix(300))")
        #expect(replay.errorLines == ["flowhost: \(path):2005: not JSON: unexpected character 'g'"])
    }

    /// 2,000 sessions of one input each, with a member of 2,500 numbers (10 MB of text).
    static func manySessions() -> String {
        let pad = Array(repeating: "0", count: 2_500).joined(separator: ",")
        var text = #"{"kind":"trace","t":0,"session":0,"input":0,"version":2}"# + "\n"
        for session in 1...2_000 {
            text += #"{"kind":"session","t":1,"session":\#(session),"input":0}"# + "\n"
            text += #"{"kind":"input","t":2,"session":\#(session),"input":0,"command":"start","pad":[\#(pad)]}"# + "\n"
        }
        return text
    }

    @Test func aGraphReadsATraceOneSessionAtATime() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("many.jsonl", containing: Self.manySessions())

        let graph = try Self.limited(["graph", "manifests/demo.json", "--no-plugins", "--trace", path])

        #expect(graph.status == 0, "\(graph.standardError.prefix(300))")
        #expect(graph.outputLines.first == "digraph flow {", "\(graph.standardOutput.prefix(300))")
    }

    /// A goal nobody reached, in a trace that handled 40 requests of names a megabyte long: the report says
    /// which handled request is nearest without keeping every name it read (in 32 MiB: keeping them takes 40).
    @Test func aGoalNobodyReachedIsLookedForAmongLongNamesInLittleMemory() throws {
        let directory = try TemporaryDirectory()
        let long = String(repeating: "x", count: 1 << 20)
        var text = #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done"}"# + "\n"
        text += #"{"kind":"session","t":1,"session":1,"input":0}"# + "\n"
        text += #"{"kind":"input","t":2,"session":1,"input":0,"command":"start"}"# + "\n"
        for index in 0..<40 {
            text += #"{"kind":"handled","t":3,"session":1,"input":0,"request":"\#(index)\#(long)"}"# + "\n"
        }
        text += #"{"kind":"handled","t":3,"session":1,"input":0,"request":"dome"}"# + "\n"
        let path = try directory.file("names.jsonl", containing: text)

        let report = try Self.limited(["experiments", "report", path], limit: 32 * 1_024)

        #expect(report.status == 0, "\(report.standardError.prefix(300))")
        #expect(
            report.errorLines == [
                "flowhost: warning: no request named 'done' was handled in these traces, so nobody reached it; did you mean 'dome'?"
            ])
    }
}
