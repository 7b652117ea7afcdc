import FlowKit
import Glibc
import Testing

@testable import FlowTraces

/// One recording named twice, by two names of one file or as a copy, is refused by the commands that read
/// several traces, naming both: read twice, it would be counted twice.
struct DuplicateTraceTests {
    @Test func aTraceNamedTwiceByAnyNameIsAUsageErrorNamingBoth() throws {
        let recording = try Recording()
        let trace = recording.trace
        let symbolic = recording.directory.path + "/symbolic.jsonl"
        let hard = recording.directory.path + "/hard.jsonl"
        try #require(symlink(trace, symbolic) == 0)
        try #require(link(trace, hard) == 0)

        for other in [trace, symbolic, hard] {
            let report = try Subprocess.flowhost(["experiments", "report", trace, other])
            #expect(report.status == 64)
            #expect(
                report.errorLines
                    == [
                        "flowhost: '\(other)' is the same file as '\(trace)'; give each trace once",
                        "usage: flowhost experiments report TRACE... [--goal REQUEST] [--json]",
                    ])
            #expect(report.standardOutput.isEmpty)
        }
        let json = try Subprocess.flowhost(["experiments", "report", trace, hard, "--json"])
        #expect(json.status == 64)
        #expect(
            try JSONValue(parsing: json.standardOutput) == [
                "errors": [
                    [
                        "file": .null, "kind": "usage", "path": .null,
                        "message": .string("'\(hard)' is the same file as '\(trace)'; give each trace once"),
                    ]
                ],
                "experiments": [], "goal": .null, "traces": [.string(trace), .string(hard)], "warnings": [],
            ])

        let graph = try Subprocess.flowhost(
            ["graph", "manifests/experiment.json", "--no-plugins", "--trace", trace, "--trace", symbolic])
        #expect(graph.status == 64)
        #expect(
            graph.errorLines.first == "flowhost: '\(symbolic)' is the same file as '\(trace)'; give each trace once")
        #expect(graph.standardOutput.isEmpty)
    }

    /// A copy is told by its header, the first line: a trace of any size is not read to compare it.
    @Test func aCopyOfATraceIsAUsageErrorNamingBoth() throws {
        let recording = try Recording()
        let copy = try recording.directory.file("copy.jsonl", containing: try readText(recording.trace))

        let report = try Subprocess.flowhost(["experiments", "report", recording.trace, copy])
        #expect(report.status == 64)
        #expect(
            report.errorLines.first
                == "flowhost: '\(copy)' holds the same recording as '\(recording.trace)' (its header is the same: a copy); give each trace once"
        )
        let graph = try Subprocess.flowhost(
            ["graph", "manifests/experiment.json", "--no-plugins", "--trace", copy, "--trace", recording.trace])
        #expect(graph.status == 64)
        #expect(
            graph.errorLines.first
                == "flowhost: '\(recording.trace)' holds the same recording as '\(copy)' (its header is the same: a copy); give each trace once"
        )

        // Only the header counts: a copy cut short (taken while the run wrote it) is the same recording.
        let header = try #require(try readText(recording.trace).split(separator: "\n").first)
        let cut = try recording.directory.file("cut.jsonl", containing: header + "\n")
        #expect(try Subprocess.flowhost(["experiments", "report", cut, recording.trace]).status == 64)
    }

    /// Two runs of one script in the same second write the same header but for its random `recording`, so
    /// that both are read.
    @Test func twoRecordingsAreBothReadAndTheirHeadersTellThemApart() throws {
        let first = try Recording()
        let second = try Recording()
        let headers = try [first.trace, second.trace].map { try TraceReader(path: $0).header }
        let ids = headers.compactMap { $0["recording"]?.string }
        #expect(ids.count == 2 && ids[0] != ids[1])
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })

        let report = try Subprocess.flowhost(["experiments", "report", first.trace, second.trace])
        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.outputLines.first == "goal: catalog.detail, from 2 traces (\(first.trace), \(second.trace))")

        // The same headers but for the id: not a copy.
        var other = try #require(headers[0].json.object)
        other["recording"] = .string(Trace.recordingId())
        let same = try TraceEvent(line: Array(JSONValue.object(other).description.utf8))
        #expect(DuplicateTrace.sameRecording(in: ["a", "b"], headers: [headers[0], same]) == nil)
        #expect(
            DuplicateTrace.sameRecording(in: ["a", "b"], headers: [headers[0], headers[0]])
                == DuplicateTrace(first: "a", second: "b", kind: .sameRecording))
    }

    /// A trace written before headers held `recording` is never taken for a copy: two runs of one script begun
    /// in the same second wrote the same header then, and refusing them (exit 64, with no way round) would
    /// leave such traces unreadable together. Named twice by one file's names, it is still refused.
    @Test func twoOlderTracesWithTheSameHeaderAreBothRead() throws {
        let first = try Recording()
        let second = try Recording()
        var header = try #require(try TraceReader(path: first.trace).header.json.object)
        header["recording"] = nil
        let older = JSONValue.object(header).description
        func body(of trace: String) throws -> String {
            try readText(trace).split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
                .joined(separator: "\n")
        }
        let a = try first.directory.file("a.jsonl", containing: older + "\n" + (try body(of: first.trace)))
        let b = try first.directory.file("b.jsonl", containing: older + "\n" + (try body(of: second.trace)))

        let report = try Subprocess.flowhost(["experiments", "report", a, b])
        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.outputLines.first == "goal: catalog.detail, from 2 traces (\(a), \(b))")
        let graph = try Subprocess.flowhost(
            ["graph", "manifests/experiment.json", "--no-plugins", "--trace", a, "--trace", b])
        #expect(graph.status == 0, "\(graph.standardError)")
        #expect(try Subprocess.flowhost(["experiments", "report", a, a]).status == 64)
    }
}

// MARK: - Test Helpers

/// A trace of three simulated subjects of the experiment's demo, recorded in a directory of its own.
private struct Recording {
    let directory: TemporaryDirectory
    let trace: String

    init() throws {
        directory = try TemporaryDirectory()
        trace = directory.path + "/t.jsonl"
        let run = try Subprocess.flowhost(
            [
                "run", "manifests/experiment.json", "--subjects", "3", "--script", "manifests/experiment.flow",
                "--quiet", "--trace", trace,
            ], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        try #require(run.status == 0, "\(run.standardError)")
    }
}
