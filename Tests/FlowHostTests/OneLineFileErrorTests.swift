import FlowKit
import Testing

@testable import FlowHost
@testable import FlowTraces

/// An error about a trace or a snapshot is one line, even when it quotes what the file says: a newline
/// someone put in a name would otherwise print a line of their own under it, such as a forged
/// `flowhost: ...` line or a report that all went well.
struct OneLineFileErrorTests {
    @Test func aTraceErrorQuotingANewlineIsOneLine() throws {
        let text = #"{"kind":"x\nflowhost: all good","t":0,"session":0,"input":0}"# + "\n"

        let error = try #require(throws: TraceError.self) { _ = try Trace.parse(text, file: "t.jsonl") }
        #expect(
            error.description
                == "t.jsonl:1: the first line is an event of kind 'x?flowhost: all good', not the trace header")
    }

    @Test func aSnapshotErrorQuotingANewlineIsOneLine() throws {
        let directory = try TemporaryDirectory()
        let children = #"[{"path": ["x"], "style": "inline\nrestored 1 of 1 step", "step": null}]"#
        let file = try directory.file(
            "s.json",
            containing: #"{"format": "flowhost-snapshot", "version": 1, "flow": {"version": 3, "steps": [], "#
                + #""presentation": {"stack": [], "tabs": [], "modals": []}, "children": "# + children + "}}")

        let error = try #require(throws: SnapshotFileError.self) { _ = try HostSnapshot.load(path: file) }
        #expect(
            error.description
                == "\(file): invalid snapshot: at children.0: 'style' is 'inline?restored 1 of 1 step', not one of inline, modal, root, tab"
        )
    }
}
