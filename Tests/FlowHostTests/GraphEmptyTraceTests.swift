import Testing

/// `graph --trace` of an empty trace (a run killed before it wrote its header) among others leaves it out with
/// a warning naming it, as `experiments report` does; alone, or with only empty ones, it is refused.
struct GraphEmptyTraceTests {
    @Test func anEmptyTraceAmongOthersIsLeftOutWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let environment = directory.cacheEnvironment
        let trace = try directory.demoTrace("signIn.jsonl", running: "act signIn\n")
        let empty = try directory.file("killed.jsonl", containing: "")
        let blank = try directory.file("blank.jsonl", containing: "\n")
        func graph(_ traces: [String]) throws -> Subprocess {
            try Subprocess.flowhost(
                ["graph", "manifests/demo.json", "--format", "mermaid"] + traces.flatMap { ["--trace", $0] },
                environment: environment)
        }

        let withEmpty = try graph([empty, trace])
        let alone = try graph([trace])
        let onlyEmpty = try graph([empty, blank])

        #expect(withEmpty.status == 0, "\(withEmpty.standardError)")
        #expect(
            withEmpty.errorLines == [
                "flowhost: warning: \(empty) is empty (a run killed before it wrote its header): the graph leaves it out"
            ])
        #expect(withEmpty.standardOutput == alone.standardOutput)
        #expect(alone.standardOutput.contains("|\"modal ×1\"|"), "\(alone.standardOutput)")
        #expect(onlyEmpty.status == 65)
        #expect(
            onlyEmpty.errorLines == [
                "flowhost: \(empty): the trace is empty; record one with flowhost run --trace FILE"
            ])
    }
}
