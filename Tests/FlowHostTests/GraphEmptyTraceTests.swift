import Testing

/// `graph --trace` of an empty trace (a run killed before it wrote its header) among others leaves it out with
/// a warning naming it, as `experiments report` does; alone, or with only empty ones, it is refused.
struct GraphEmptyTraceTests {
    @Test func anEmptyTraceAmongOthersIsLeftOutWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let environment: [String: String?] = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let trace = directory.path + "/signIn.jsonl"
        let script = try directory.file("signIn.flow", containing: "act signIn\n")
        let recorded = try Subprocess.flowhost(
            ["run", "manifests/demo.json", "--script", script, "--trace", trace, "--quiet"], environment: environment)
        try #require(recorded.status == 0, "\(recorded.standardError)")
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
