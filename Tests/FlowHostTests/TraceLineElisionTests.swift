import FlowKit
import Testing

@testable import FlowTraces

/// `experiments report` and `graph --trace` read a trace's lines without the long values of the members they
/// do not read (``TraceLineElision``): a line of a million small objects takes about its bytes, not some 24
/// times them, and everything they read, errors included, is what the line read whole gives.
@MainActor
struct TraceLineElisionTests {
    /// A value far longer than ``TraceLineElision/threshold``, of small objects: what made a report take 2.1 GB.
    nonisolated static let smallObjects = "[" + Array(repeating: #"{"a":1}"#, count: 2_000).joined(separator: ",") + "]"

    @Test func aReportOverHugeMembersItDoesNotReadGivesTheFiguresOfThemSmall() throws {
        let directory = try TemporaryDirectory()
        let small = ExperimentReportTests.fixedText()
        let path = try directory.file("t.jsonl", containing: small)
        let expected = try Self.report(path).lines
        let lines = small.split(separator: "\n").map(String.init)
        let large = lines.enumerated().map { index, line in
            // The header's plugins, every screen's content, and a string and an object too.
            let member =
                index == 0
                ? #""plugins":{"big":\#(Self.smallObjects)}"#
                : line.contains(#""kind":"screen""#)
                    ? #""content":\#(Self.smallObjects),"note":"\#(String(repeating: "x", count: 5_000))""# : nil
            return member.map { "{" + $0 + "," + line.dropFirst() } ?? line
        }
        _ = try directory.file("t.jsonl", containing: large.joined(separator: "\n") + "\n")

        #expect(large.joined().utf8.count > 20 * small.utf8.count)
        #expect(try Self.report(path).lines == expected)
        let reader = try TraceReader(path: path, reading: ExperimentReport.membersRead)
        #expect(reader.header["plugins"]?["elided"]?.string?.hasPrefix("elided: 16009 bytes, hash ") == true)
    }

    @Test func aMemberTheReaderDoesNotReadIsElidedAsAValueOfItsType() throws {
        let long = String(repeating: "y", count: 5_000)
        let event = try Self.event(
            #""content":\#(Self.smallObjects),"title":"\#(long)","presentation":{"tabs":\#(Self.smallObjects)},"#
                + #""size":1.\#(String(repeating: "0", count: 5_000)),"short":[1,2],"module":"list""#)

        #expect(event["content"]?.array?.count == 1)
        #expect(event["content"]?[0]?.string?.hasPrefix("elided: 16001 bytes, hash ") == true)
        #expect(event["title"]?.string?.hasPrefix("elided: 5002 bytes, hash ") == true)
        #expect(event["presentation"]?["elided"]?.string?.hasPrefix("elided: 16010 bytes, hash ") == true)
        // A number is kept, however long; so is any short value.
        #expect(event["size"] == 1)
        #expect(event["short"] == [1, 2])
        #expect(event["module"] == "list")
    }

    @Test func aMemberTheReportReadsIsKeptWholeHoweverLong() throws {
        let error = String(repeating: "e", count: 10_000)
        let subject = String(repeating: "s", count: 10_000)
        let event = try Self.event(
            #""error":"\#(error)","subject":"\#(subject)","content":\#(Self.smallObjects),"request":"done""#,
            kind: "failed")

        #expect(event["error"]?.string == error)
        #expect(event["subject"]?.string == subject)
        #expect(event["request"] == "done")
        #expect(event["content"]?.array?.count == 1, "and the one it does not read is elided")
    }

    /// A quote or a backslash escaped, brackets and braces inside strings: the value ends where the parser ends
    /// it, and the members after it read as they are.
    @Test func stringsWithEscapesAndBracketsInsideAreSkippedWhole() throws {
        let tricky = #"["a \"]}\\", "\\", "{\"[", "\\\"", "\u00e9\ud83d\ude00", "x\/y"]"#
        let content = "[" + Array(repeating: tricky, count: 200).joined(separator: ",") + "]"
        let event = try Self.event(#""content":\#(content),"label":"]}\"","module":"list","depth":2"#)

        #expect(event["content"]?[0]?.string?.hasPrefix("elided: \(content.utf8.count) bytes") == true)
        #expect(event["label"] == #"]}""#)
        #expect(event["module"] == "list")
        #expect(event["depth"] == 2)
    }

    /// Lines whose JSON is wrong only inside a long member the reader does not read, or that are not events: the
    /// error is the one the line read whole gives, with the file and the line, to a reader of a few members and
    /// to one of all (replay's).
    @Test(arguments: [
        #""content":[\#(smallObjects),{"a":1,"a":2}]"#,
        #""content":[\#(smallObjects),{"a":1,"\u0061":2}]"#,
        #""content":[\#(smallObjects),"bad \x escape"]"#,
        #""content":[\#(smallObjects),"lone \udc00"]"#,
        #""content":[\#(smallObjects),"\ud800 unpaired"]"#,
        #""content":[\#(smallObjects),"tab\#tinside"]"#,
        #""content":[\#(smallObjects),1e999]"#,
        #""content":[\#(smallObjects),01]"#,
        #""content":[\#(smallObjects),]"#,
        #""content":[\#(smallObjects),tru]"#,
        #""content":[\#(smallObjects)"#,
        #""content":\#(String(repeating: "[", count: 520))\#(smallObjects)\#(String(repeating: "]", count: 520))"#,
        #""content":\#(smallObjects),"content":[]"#,
        #""content":\#(smallObjects),"command":7"#,
        #""content":\#(smallObjects)} trailing"#,
        #""content":\#(smallObjects) // a comment"#,
    ])
    func aLineThatIsWrongGetsTheErrorOfTheLineReadWhole(members: String) throws {
        try expectTheErrorOfTheLineReadWhole(Self.line(members))
    }

    /// A long line that is not an object is not an event, whatever it holds.
    @Test(arguments: [smallObjects, #""\#(String(repeating: "s", count: 5_000))""#, "[" + smallObjects + ",]"])
    func aLongLineThatIsNotAnObjectGetsTheErrorOfTheLineReadWhole(line: String) throws {
        try expectTheErrorOfTheLineReadWhole(line)
    }

    /// A long line that is not JSON is refused before anything of it is built, with the parser's reason: a line
    /// of a million small objects with a comma too many at its end took a report some 24 times its bytes.
    @Test func aLongLineThatIsNotJSONIsRefusedUnbuilt() {
        let line = Array(Self.line(#""content":[\#(Self.smallObjects),]"#).utf8)

        let error = #expect(throws: TraceLineScanner.Malformed.self) {
            try TraceLineElision.elided(line, keeping: ExperimentReport.membersRead)
        }
        let checked = #expect(throws: TraceLineScanner.Malformed.self) {
            try TraceLineElision.elided(line, keeping: nil)
        }

        #expect(error?.reason == "trailing comma in array")
        #expect(checked?.reason == "trailing comma in array")
    }

    /// A first line: the hint that a trace is one JSON object a line comes with the parser's reason.
    @Test func aLongFirstLineThatIsNotJSONGetsTheErrorOfTheLineReadWhole() throws {
        let directory = try TemporaryDirectory()
        let text = #"{"kind":"trace","t":0,"session":0,"input":0,"plugins":[\#(Self.smallObjects),]}"# + "\n"
        let path = try directory.file("t.jsonl", containing: text)
        let whole = #expect(throws: TraceError.self) { try Trace.parse(text, file: path) }

        let read = #expect(throws: TraceError.self) {
            try TraceReader(path: path, reading: ExperimentReport.membersRead).readToEnd()
        }

        #expect(read?.description == whole?.description)
        #expect(read?.message.hasPrefix("not JSON: trailing comma in array; a trace has one JSON object per") == true)
    }

    /// A member's name is read as the parser reads it, escapes decoded: `"\u0063ontent"` is `content`.
    @Test func aNameWrittenWithEscapesIsTheNameItSays() throws {
        let event = try Self.event(#""\u0063ontent":\#(Self.smallObjects),"module":"list""#)

        #expect(event["content"]?[0]?.string?.hasPrefix("elided: 16001 bytes, hash ") == true)
        #expect(event["module"] == "list")
    }

    func expectTheErrorOfTheLineReadWhole(_ line: String) throws {
        let directory = try TemporaryDirectory()
        let text = Self.header + "\n" + line + "\n"
        let path = try directory.file("t.jsonl", containing: text)
        let whole = #expect(throws: TraceError.self) { try Trace.parse(text, file: path) }

        let read = #expect(throws: TraceError.self) {
            try TraceReader(path: path, reading: ExperimentReport.membersRead).readToEnd()
        }
        let readAll = #expect(throws: TraceError.self) { try TraceReader(path: path).readToEnd() }

        #expect(read?.description == whole?.description)
        #expect(readAll?.description == whole?.description)
        #expect(read?.line == 2)
    }

    @Test func aLineThatIsNotUTF8InAMemberNotReadIsRefusedAsNotUTF8() throws {
        let directory = try TemporaryDirectory()
        let line = Array(Self.line(#""content":["\#(String(repeating: "z", count: 5_000))","é"]"#).utf8)
        let path = try directory.file(
            "t.jsonl", containing: Array(Self.header.utf8) + [0x0A] + line.map { $0 == 0xA9 ? 0xFF : $0 } + [0x0A])
        let whole = #expect(throws: TraceError.self) { try TraceReader(path: path).readToEnd() }

        let read = #expect(throws: TraceError.self) {
            try TraceReader(path: path, reading: ExperimentReport.membersRead).readToEnd()
        }

        #expect(read?.description == whole?.description)
        #expect(read?.message.hasPrefix("not UTF-8 text") == true)
    }

    /// Two headers that differ only in a long member read not are two recordings; a copy is still a copy.
    @Test func headersThatDifferOnlyInAnElidedMemberAreNotTakenForCopies() throws {
        let directory = try TemporaryDirectory()
        let header = #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"recording":"r1","plugins":"#
        let a = try directory.file("a.jsonl", containing: header + Self.smallObjects + "}\n")
        let b = try directory.file(
            "b.jsonl", containing: header + Self.smallObjects.replacing(#""a":1}]"#, with: #""a":2}]"#) + "}\n")
        let copy = try directory.file("copy.jsonl", containing: header + Self.smallObjects + "}\n")
        let members = ExperimentReport.membersRead

        let headers = try TraceReader.headers(of: [a, b, copy], reading: members)

        #expect(headers[0]["plugins"] != headers[1]["plugins"])
        #expect(DuplicateTrace.sameRecording(in: [a, b], headers: Array(headers[0...1])) == nil)
        #expect(
            DuplicateTrace.sameRecording(in: [a, copy], headers: [headers[0], headers[2]])
                == DuplicateTrace(first: a, second: copy, kind: .sameRecording))
    }

    // MARK: - Test Helpers

    nonisolated static let header = #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done"}"#

    /// A `presented` line (or one of `kind`) of session 1 with `members` after its own.
    static func line(_ members: String, kind: String = "presented") -> String {
        #"{"kind":"\#(kind)","t":5,"session":1,"input":0,"# + members + "}"
    }

    /// The event of a trace's second line, ``line(_:kind:)``, read as the report reads it.
    static func event(_ members: String, kind: String = "presented") throws -> TraceEvent {
        let directory = try TemporaryDirectory()
        let path = try directory.file("t.jsonl", containing: header + "\n" + line(members, kind: kind) + "\n")
        let reader = try TraceReader(path: path, reading: ExperimentReport.membersRead)
        return try #require(try reader.next())
    }

    /// The report of the trace at `path`, as `experiments report` reads it.
    static func report(_ path: String) throws -> ExperimentReport {
        let headers = try TraceReader.headers(of: [path], reading: ExperimentReport.membersRead)
        return try ExperimentReport.read([path], headers: headers, goal: "done")
    }
}
