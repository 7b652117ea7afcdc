import Testing

@testable import FlowManifest

/// A trace given where a manifest goes (`flowhost graph t.jsonl`, its manifest forgotten) is said to be one,
/// rather than left as JSON with trailing characters.
struct TraceGivenAsManifestTests {
    static let trace = """
        {"kind":"trace","t":0,"session":0,"input":0,"version":2,"manifest":"app.json"}
        {"kind":"session","t":5,"session":1,"input":0}

        """

    @Test func aTraceParsedAsAManifestIsSaidToBeATrace() {
        let trace = #expect(throws: ManifestErrors.self) { try Manifest.parse(Self.trace, path: "t.jsonl") }
        #expect(
            trace?.errors.map(\.description) == [
                "t.jsonl: not valid JSON: line 2, column 1: trailing characters after the value; it is a trace (flowhost run --trace writes them), not a manifest: give the manifest first"
            ])
        // Two JSON objects that are not a trace get no such hint.
        let other = #expect(throws: ManifestErrors.self) { try Manifest.parse("{}\n{}\n", path: "x.json") }
        #expect(
            other?.errors.map(\.description) == [
                "x.json: not valid JSON: line 2, column 1: trailing characters after the value"
            ])
    }

    @Test func graphOfATraceAloneSaysTheManifestIsMissing() throws {
        let directory = try TemporaryDirectory()
        let trace = try directory.file("t.jsonl", containing: Self.trace)

        let graph = try Subprocess.flowhost(["graph", trace])

        #expect(graph.status == 65)
        #expect(
            graph.errorLines.first
                == "\(trace): not valid JSON: line 2, column 1: trailing characters after the value; it is a trace (flowhost run --trace writes them), not a manifest: give the manifest first"
        )
    }
}
