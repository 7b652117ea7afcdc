import FlowKit
import Glibc
import HostSupport
import Testing

@testable import FlowTraces

/// `experiments report` and `replay` read traces line by line, through a buffer far smaller than a trace:
/// they find what a trace read whole gives, the same errors included.
@MainActor
struct TraceStreamingTests {
    @Test func linesSplitAcrossReadsComeBackWhole() throws {
        let directory = try TemporaryDirectory()
        let long = String(repeating: "x", count: 1_000)
        let path = try directory.file("lines", containing: "a\n\nbc\n\(long)\nlast")
        for chunk in [1, 2, 3, 7, 64, 4_096] {
            let reader = try FileLineReader(path: path, what: "file", chunkSize: chunk)
            var lines: [String] = []
            while let line = try reader.next() { lines.append(String(decoding: line, as: UTF8.self)) }
            #expect(lines == ["a", "", "bc", long, "last"], "chunks of \(chunk) bytes")
            #expect(reader.lineNumber == 5)
        }
    }

    /// What is appended once the file is open is not read: a report of a trace that grew faster than it was
    /// read never ended.
    @Test func linesAppendedAfterTheFileIsOpenedAreNotRead() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("lines", containing: "a\nb\n")
        let reader = try FileLineReader(path: path, what: "file", chunkSize: 1)
        #expect(try reader.next() == Array("a".utf8))

        let appending = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(appending >= 0)
        defer { close(appending) }
        #expect(write(appending, "c\n", 2) == 2)

        #expect(try reader.next() == Array("b".utf8))
        #expect(try reader.next() == nil)
    }

    @Test func aLineLongerThanTheLimitIsRefusedWithoutReadingItWhole() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("lines", containing: "ab\n" + String(repeating: "x", count: 11) + "\nend")
        for chunk in [1, 4, 64] {
            let reader = try FileLineReader(path: path, what: "file", chunkSize: chunk, maxLineLength: 10)
            #expect(try reader.next() == Array("ab".utf8))
            let error = #expect(throws: InputFile.Failure.self) { try reader.next() }
            #expect(error?.kind == .tooLarge)
            #expect(error?.message == "file has a line longer than the limit of 10 bytes")
            #expect(reader.lineNumber == 1, "chunks of \(chunk) bytes")
        }
        let exact = try FileLineReader(path: path, what: "file", chunkSize: 4, maxLineLength: 11)
        #expect(try exact.next() == Array("ab".utf8))
        #expect(try exact.next()?.count == 11)
    }

    /// A trace without a newline, as large as its writer likes at no cost to them (a sparse file): refused at
    /// its limit, in one line, rather than read whole.
    @Test func aTraceWhoseLineHasNoEndIsRefusedInOneLine() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("huge.jsonl", containing: "")
        #expect(truncate(path, 1 << 30) == 0)

        let report = try Subprocess.flowhost(["experiments", "report", path])

        #expect(report.status == 65)
        #expect(
            report.errorLines == [
                "flowhost: \(path):1: trace file has a line longer than the limit of 101711872 bytes"
            ])
    }

    /// Read a step at a time (`replay`, `graph --trace`), a trace gives the sessions and inputs it gives read whole.
    @Test func aTraceLargerThanTheBufferGivesTheInputsOfTheTraceReadWhole() throws {
        let directory = try TemporaryDirectory()
        let text = try Self.fixedText()
        let path = try directory.file("fixed.jsonl", containing: text)
        let whole = try Trace.parse(text, file: path)
        let expected = whole.sessions.flatMap { session in
            ["session \(session.number) of \(session.subject ?? "-")"] + session.inputs.map(Self.lines)
        }
        #expect(expected.count > 2 * whole.sessions.count, "sessions of several inputs")
        for chunk in [5, 97] {
            #expect(text.utf8.count > 20 * chunk)
            let reader = try TraceReader(path: path, chunkSize: chunk)
            #expect(reader.header == whole.header)
            var steps: [String] = []
            while let step = try reader.nextStep() {
                switch step {
                case .session(let number, let subject): steps.append("session \(number) of \(subject ?? "-")")
                case .input(let input): steps.append(Self.lines(input))
                case .header: continue
                }
            }
            #expect(steps == expected, "chunks of \(chunk) bytes")
        }
    }

    @Test func aTraceWithoutATrailingNewlineKeepsItsLastLine() throws {
        let directory = try TemporaryDirectory()
        var text = try Self.fixedText()
        text.removeLast()
        let path = try directory.file("fixed.jsonl", containing: text)
        let reader = try TraceReader(path: path, chunkSize: 16)
        var events: [TraceEvent] = []
        while let event = try reader.next() { events.append(event) }
        #expect(events == (try ExperimentReportTests.fixedTrace()).events)
        #expect(events.last?.kind == .screen)

        let report = try Subprocess.flowhost(["experiments", "report", path])
        let expected = try ExperimentReport(traces: [try Trace.parse(text, file: path)], goal: "done")
        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.standardOutput == expected.lines.joined(separator: "\n") + "\n")
    }

    @Test func severalTracesReportTogetherAsWhenReadWhole() throws {
        let directory = try TemporaryDirectory()
        var paths: [String] = []
        // Subjects 1 to 30 are in both traces: they count once, in the first.
        for (name, subjects) in [("a.jsonl", "30"), ("b.jsonl", "45")] {
            let path = directory.path + "/" + name
            let run = try Subprocess.flowhost(
                [
                    "run", "manifests/experiment.json", "--subjects", subjects, "--script",
                    "manifests/experiment.flow", "--trace", path,
                ], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
            try #require(run.status == 0, "\(run.standardError)")
            paths.append(path)
        }
        let larger = try InputFile.read(paths[1], what: "trace", limit: 1 << 30).count
        #expect(larger > 64 * 1_024, "larger than the reader's buffer")

        let whole = try ExperimentReport(traces: try paths.map { try Trace.load(path: $0) }, goal: "catalog.detail")
        #expect(whole.experiments.first?.exposed == 45)
        let printed = try Subprocess.flowhost(["experiments", "report"] + paths)
        #expect(printed.status == 0, "\(printed.standardError)")
        #expect(printed.standardOutput == whole.lines.joined(separator: "\n") + "\n")
        let json = try Subprocess.flowhost(["experiments", "report", "--json"] + paths)
        #expect(try JSONValue(parsing: json.standardOutput) == whole.json)

        let replay = try Subprocess.flowhost(
            ["replay", paths[0]], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(replay.outputLines.first?.hasPrefix("replay identical: 30 sessions (their starts and ") == true)
    }

    /// A trace copied only in part ends in the middle of a line, with no newline after it: that line is said
    /// to be cut short, read whole or line by line; a last line ended by a newline is a line written wrong.
    @Test func aTraceCutShortInTheMiddleOfALineIsSaidToBe() throws {
        let directory = try TemporaryDirectory()
        let header = #"{"goal":"done","input":0,"kind":"trace","session":0,"t":0,"version":1}"#
        let event = #"{"input":0,"kind":"session","session":1,"t":5}"#
        let text = header + "\n" + event + "\n" + event.prefix(20)
        let cut = try directory.file("cut.jsonl", containing: text)
        let wrong = try directory.file("wrong.jsonl", containing: header + "\n" + event + "\n{oops\n")
        let cutShort =
            "not JSON: unterminated string; it is the trace's last line, cut short: the file was copied or written only in part; head -n 2 \(cut) > whole.jsonl keeps the lines before it"

        #expect(throws: TraceError(cutShort, file: cut, line: 3)) { try Trace.parse(text, file: cut) }
        // A path a shell would split or expand is quoted, so that the command can be pasted as it is.
        #expect(
            throws: TraceError(
                cutShort.replacing(cut, with: "'/t/it'\\''s here.jsonl'"), file: "/t/it's here.jsonl", line: 3)
        ) {
            try Trace.parse(text, file: "/t/it's here.jsonl")
        }
        for command in [["experiments", "report"], ["replay"]] {
            let run = try Subprocess.flowhost(command + [cut])
            #expect(run.status == 65, "\(command)")
            #expect(run.errorLines == ["flowhost: \(cut):3: \(cutShort)"], "\(command)")
        }
        let written = try Subprocess.flowhost(["experiments", "report", wrong])
        #expect(written.errorLines == ["flowhost: \(wrong):3: not JSON: expected string key in object"])
    }

    @Test func aLineThatIsNotAnEventIsNamedAsWhenTheTraceWasReadWhole() throws {
        let directory = try TemporaryDirectory()
        let header = #"{"goal":"done","input":0,"kind":"trace","session":0,"t":0,"version":1}"#
        let event = #"{"input":0,"kind":"session","session":1,"t":5}"#
        let cases: [(name: String, lines: [[UInt8]], error: String)] = [
            ("json", [header, event, "{oops", event].map { Array($0.utf8) }, "3: not JSON"),
            // A line further down that is not UTF-8 comes first, as it did.
            (
                "utf8", [header, "{oops", event, "\"caf\u{E9}\""].map { Array($0.utf8) } + [[0x7B, 0xFF]],
                "5: not UTF-8"
            ),
            // So does a line that is not an event, before a first line that is not the header.
            ("header", [event, event, "[1]"].map { Array($0.utf8) }, "3: an event must be"),
        ]
        for (name, lines, error) in cases {
            let bytes = Array(lines.joined(separator: [0x0A]))
            let path = try directory.file(name + ".jsonl", containing: bytes)
            let expected: String
            if let text = String(validating: bytes, as: UTF8.self) {
                let whole = #expect(throws: TraceError.self) { try Trace.parse(text, file: path) }
                expected = "flowhost: " + (whole?.description ?? "")
            } else {
                expected = "flowhost: \(path):5: not UTF-8 text: an invalid byte at column 2"
            }
            #expect(expected.hasPrefix("flowhost: \(path):\(error)"), "\(expected)")
            for command in [["experiments", "report", path], ["replay", path], ["experiments", "report", path, "x"]] {
                let run = try Subprocess.flowhost(command)
                #expect(run.status == 65, "\(command)")
                #expect(run.errorLines == [expected], "\(command)")
            }
            // With --json, as replay's errors are: the file apart, the line leading the message.
            let json = try Subprocess.flowhost(["experiments", "report", "--json", path])
            #expect(json.status == 65)
            let message = "line " + expected.dropFirst("flowhost: \(path):".count)
            #expect(
                try JSONValue(parsing: json.standardOutput) == [
                    "errors": [["file": .string(path), "kind": "trace", "message": .string(message), "path": .null]],
                    "experiments": [], "goal": .null, "traces": [.string(path)], "warnings": [],
                ])
        }
    }

    @Test func aMissingTraceAfterOneThatIsNotATraceNamesTheFirst() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("bad.jsonl", containing: #"{"kind":"trace","input":0,"session":0,"t":0}"#)
        let run = try Subprocess.flowhost(["experiments", "report", path, directory.path + "/none.jsonl"])
        #expect(run.status == 65)
        #expect(
            run.errorLines == ["flowhost: \(path):1: trace format version 0 is not one this flowhost reads (1 to 3)"])
        let missing = try Subprocess.flowhost(["experiments", "report", directory.path + "/none.jsonl", path])
        #expect(missing.status == 66)
        #expect(missing.errorLines == ["flowhost: \(directory.path)/none.jsonl: trace file not found"])
    }

    // MARK: - Test Helpers

    /// The hand-made trace of ``ExperimentReportTests``, as the text of a file.
    private static func fixedText() throws -> String {
        let trace = try ExperimentReportTests.fixedTrace()
        return ([trace.header] + trace.events).map(\.line).joined(separator: "\n") + "\n"
    }

    /// An input's lines: its own, its events', its screen's.
    private static func lines(_ input: Trace.Input) -> String {
        ([input.record.line] + input.events.map(\.line) + [input.screen?.line ?? "-"]).joined(separator: "\n")
    }
}
