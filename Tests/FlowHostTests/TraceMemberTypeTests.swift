import FlowKit
import Testing

@testable import FlowTraces

/// A member that replay, report and graph read, of another type than flowhost writes it as, is refused with
/// the file, the line and the member, rather than read as missing: an input's command as the empty command
/// (a replay that runs what nobody recorded), an exposure as none (a report that counts nobody).
@MainActor
struct TraceMemberTypeTests {
    static let header = #"{"kind":"trace","t":0,"session":0,"input":0,"version":2,"goal":"done"}"#

    @Test(arguments: [
        (
            #"{"kind":"input","t":1,"session":1,"input":0,"command":12}"#,
            #"the 'input' event's "command" must be a string, not number"#
        ),
        (
            #"{"kind":"exposure","t":1,"session":1,"input":0,"experiment":"e","variant":"a","subject":{"id":1}}"#,
            #"the 'exposure' event's "subject" must be a string, not object"#
        ),
        (
            #"{"kind":"handled","t":1,"session":1,"input":0,"request":"done","requestId":-1}"#,
            #"the 'handled' event's "requestId" must be a whole number of 0 or more, not number"#
        ),
        (
            #"{"kind":"input","t":1,"session":1,"input":0,"command":"start","unprompted":"yes"}"#,
            #"the 'input' event's "unprompted" must be true or false, not string"#
        ),
    ])
    func aMemberOfAnotherTypeIsRefusedNamingTheLine(line: String, message: String) {
        let error = #expect(throws: TraceError.self) {
            try Trace.parse(Self.header + "\n" + line + "\n", file: "t.jsonl")
        }
        #expect(error?.description == "t.jsonl:2: \(message)")
    }

    @Test func aReplayOfACommandThatIsNotAStringRunsNothing() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "t.jsonl",
            containing: Self.header + "\n" + #"{"kind":"session","t":1,"session":1,"input":0}"# + "\n"
                + #"{"kind":"input","t":2,"session":1,"input":0,"command":["start"]}"# + "\n")

        let replay = try Subprocess.flowhost(["replay", path, "--manifest", "manifests/demo.json"])

        #expect(replay.status == 65)
        #expect(
            replay.errorLines == [#"flowhost: \#(path):3: the 'input' event's "command" must be a string, not array"#])
    }

    @Test func whatFlowhostWritesIsOfTheseTypes() throws {
        let trace = try ExperimentReportTests.fixedTrace()
        for event in [trace.header] + trace.events {
            #expect(TraceEvent.wrongMember(in: event.fields, kind: event.kind.rawValue) == nil, "\(event.line)")
        }
    }
}
