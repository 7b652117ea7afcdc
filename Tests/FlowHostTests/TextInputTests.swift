import Glibc
import Testing

@testable import FlowManifest
@testable import FlowShell
@testable import HostSupport

/// Traces, scripts and snapshots that are not UTF-8 text are refused with the file and line, exit 65,
/// instead of being read with replacement characters (a replay then sends what was never recorded).
struct TextInputTests {
    @Test func aTraceWithInvalidUTF8IsRefusedByEveryCommandThatReadsTraces() throws {
        let directory = try TemporaryDirectory()
        let trace = directory.path + "/run.trace"
        let recorded = try Subprocess.flowhost([
            "run", Repository.path("manifests/demo.json"), "--script", Repository.path("manifests/demo.flow"),
            "--trace", trace, "--quiet",
        ])
        try #require(recorded.status == 0)
        var lines = try Manifest.readFile(trace).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        try #require(lines.count > 4)
        // Inside the third line's first string: `{"` then a byte that starts no UTF-8 sequence.
        lines[2].insert(0xFF, at: lines[2].startIndex + 2)
        let broken = try directory.file("broken.trace", containing: Array(lines.joined(separator: [0x0A])))
        let expected = "flowhost: \(broken):3: not UTF-8 text: an invalid byte at column 3"

        let replay = try Subprocess.flowhost(["replay", broken])
        #expect(replay.status == 65)
        #expect(replay.errorLines == [expected])

        let report = try Subprocess.flowhost(["experiments", "report", broken, "--goal", "launch"])
        #expect(report.status == 65)
        #expect(report.errorLines == [expected])

        let graph = try Subprocess.flowhost([
            "graph", Repository.path("manifests/demo.json"), "--no-plugins", "--trace", broken,
        ])
        #expect(graph.status == 65)
        #expect(graph.errorLines == [expected])
        #expect(try Subprocess.flowhost(["replay", trace]).status == 0, "the trace it was made from replays")
    }

    @Test func aScriptWithInvalidUTF8IsRefusedWithItsLine() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("bad.flow", containing: Array("stack\nshow\nact s".utf8) + [0xE9, 0x0A])

        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", script])

        #expect(run.status == 65)
        #expect(run.errorLines == ["\(script):3: not UTF-8 text: an invalid byte at column 6"])
        #expect(run.standardOutput.isEmpty, "nothing ran")
    }

    @Test func aSnapshotWithInvalidUTF8NamesItsLine() throws {
        let directory = try TemporaryDirectory()
        let snapshot = try directory.file(
            "bad.json", containing: Array("{\n\"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8))

        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--restore", snapshot])

        #expect(run.status == 65)
        #expect(run.errorLines == ["\(snapshot): not a snapshot: the file is not UTF-8 text (line 2, column 7)"])
    }

    @Test func theFirstInvalidByteIsFoundByLineAndColumn() {
        #expect(InputFile.firstInvalidUTF8(in: Array("ok\nstill ok é\n".utf8)) == nil)
        #expect(
            InputFile.firstInvalidUTF8(in: [0x61, 0x0A, 0xC3, 0xA9, 0x62, 0xFF]).map { [$0.line, $0.column] } == [2, 3])
        #expect(InputFile.firstInvalidUTF8(in: [0xC3]).map { [$0.line, $0.column] } == [1, 1], "cut short")
    }

    @Test func whitespaceIsUnicodesWhiteSpaceWithoutTheLookupForASCII() {
        let scalars = (0...0x3000).compactMap(Unicode.Scalar.init)
        let differing = scalars.filter { $0.isWhitespace != $0.properties.isWhitespace }
        #expect(differing.isEmpty, "\(differing.map(\.value))")
        #expect(scalars.filter(\.isWhitespace).count > 6, "tab to carriage return, space, and others beyond ASCII")
        #expect(" \u{A0}act\tsignIn \u{3000}".trimmingWhitespace() == "act\tsignIn")
        for (line, trimmed) in [
            ("act signIn", "act signIn"), (" act", "act"), ("act\n", "act"), ("a\u{A0}", "a"), ("\u{2003}a", "a"),
            ("", ""), ("\t \n", ""), ("é", "é"),
        ] {
            #expect(line.trimmingWhitespace() == trimmed, "\(Array(line.unicodeScalars))")
        }
    }

    @Test func aCommandsFirstWordEndsAtTheFirstWhiteSpaceASCIIOrNot() {
        #expect("act signIn".firstWord == "act")
        #expect("act\tsignIn".firstWord == "act")
        #expect("quit".firstWord == "quit")
        #expect("".firstWord == "")
        #expect("act\u{A0}signIn".firstWord == "act", "a no-break space is white space too")
        #expect("café\u{3000}au lait".firstWord == "café", "bytes beyond ASCII before the space")
        #expect("∆x".firstWord == "∆x")
        for line in ["act signIn", "act\u{A0}signIn", "café\u{3000}au lait", "send x", "∆"] {
            #expect(String(line.firstWord) == line.splitFirstWord().0)
        }
    }
}
