import FlowKit
import HostSupport
import Testing

@testable import FlowManifest
@testable import FlowTraces

/// Names a trace brings into a flow graph are anyone's text: printed as `dot` or Mermaid, they stay inside
/// their quoted labels, whatever quotes, newlines, tags or combining marks they hold.
@MainActor
struct FlowGraphQuotingTests {
    /// A name that ends its label, then adds a Mermaid statement and an HTML tag.
    private static let hostile = "x\"]\n  click n0 href \"https://example.com\"\n  y[\"<img src=x onerror=alert(1)>"

    /// The demo's graph with a trace whose one request was handled by a manager of a plugin named `plugin`.
    private static func graph(plugin: String) throws -> FlowGraph {
        let lines: [JSONValue] = [
            ["kind": "trace", "t": 0, "session": 0, "input": 0, "version": 2, "root": "demo"],
            ["kind": "session", "t": 1, "session": 1, "input": 0, "root": "demo"],
            ["kind": "input", "t": 2, "session": 1, "input": 0, "command": "start"],
            [
                "kind": "handling", "t": 3, "session": 1, "input": 0, "request": "launch", "from": "app",
                "manager": .string(plugin + ".Launch"), "plugin": .string(plugin), "depth": 0,
            ],
        ]
        let trace = try Trace.parse(lines.map(\.description).joined(separator: "\n") + "\n", file: "t.jsonl")
        var graph = FlowGraph(manifest: try Manifest.load(path: Repository.path("manifests/demo.json")))
        graph.add(trace)
        return graph
    }

    @Test func mermaidKeepsATracedNameInsideItsLabels() throws {
        let mermaid = try Self.graph(plugin: Self.hostile).mermaid

        #expect(mermaid.contains("#lt;img src=x onerror=alert(1)#gt;"), "the name is drawn, escaped")
        let lines = mermaid.split(separator: "\n").map { $0.trimmingWhitespace() }
        #expect(!lines.contains { $0.hasPrefix("click") || $0.hasPrefix("y[") }, "\(mermaid)")
        #expect(!mermaid.contains("<img"))
        for line in lines where line.contains("click") {
            #expect(line.filter { $0 == "\"" }.count.isMultiple(of: 2), "a label ends early: \(line)")
        }
    }

    @Test func dotKeepsAQuoteWithACombiningMarkInsideItsString() throws {
        // `"` then U+0301 is one Character, which is not `"`: copied whole, the quote ended the string. (Kept out
        // of the macros' literals, which the expansion of `#expect` itself quotes by characters.)
        let quoteMark = "\"\u{301}"
        let dot = try Self.graph(plugin: "x" + quoteMark + ", URL=\"https://example.com").dot

        let escaped = "x\\" + quoteMark + ", URL=\\\"https://example.com"
        let raw = "x" + quoteMark
        #expect(dot.contains(escaped), "\(dot)")
        #expect(!dot.contains(raw), "the quote is escaped")
    }

    @Test func labelsEscapeByScalarsNotCharacters() {
        let (quoteMark, backslashMark) = ("\"\u{301}", "\\\u{301}")
        let dot = FlowGraph.dotQuoted("a" + quoteMark + backslashMark + "\nb")
        let mermaid = FlowGraph.mermaidQuoted("a" + quoteMark + "<b>\r\nc")
        let expected = (dot: "\"a\\\"\u{301}\\\\\u{301}\\nb\"", mermaid: "\"a#quot;\u{301}#lt;b#gt;\r<br/>c\"")
        #expect(dot == expected.dot)
        #expect(mermaid == expected.mermaid)
    }
}
