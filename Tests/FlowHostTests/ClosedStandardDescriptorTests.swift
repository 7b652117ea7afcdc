import Testing

/// `flowhost` started with standard input, output or error closed, as a service manager or a cron job may
/// start it: the files it opens do not take their places.
struct ClosedStandardDescriptorTests {
    /// Runs the built `flowhost` with `arguments` through `sh`, descriptor `closing` closed.
    private func flowhost(_ arguments: [String], closing descriptor: Int32) throws -> Subprocess {
        try Subprocess.run(
            "/bin/sh", ["-c", "exec \"$@\" \(descriptor)<&-", "sh", BuildProducts.path(of: "flowhost")] + arguments)
    }

    @Test func aTraceWrittenWithStandardOutputClosedHoldsOnlyTheTrace() throws {
        let directory = try TemporaryDirectory()
        let trace = directory.path + "/run.jsonl"

        let run = try flowhost(
            [
                "run", Repository.path("manifests/demo.json"), "--script", Repository.path("manifests/demo.flow"),
                "--trace", trace,
            ], closing: 1)

        #expect(run.status == 0)
        let lines = try readText(trace).split(separator: "\n")
        #expect(!lines.isEmpty)
        // What the shell printed (`  dependency auth.session set`, `  top: welcome`) went nowhere, not here.
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"kind":"#) })
        let replay = try Subprocess.flowhost(["replay", trace])
        #expect(replay.status == 0, "\(replay.standardError)")
    }

    @Test func aRunWithStandardInputClosedEndsAsAtTheEndOfItsInput() throws {
        let run = try flowhost(["run", Repository.path("manifests/demo.json"), "--quiet"], closing: 0)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardError.contains("cannot read"))
    }
}
