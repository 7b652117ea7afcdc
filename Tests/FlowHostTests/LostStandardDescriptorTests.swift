import FlowKit
import Testing

/// A run without a supervisor whose standard output or error plugin code closes (the HangyPlugin fixture's
/// `Close*` managers), or its standard input when it reads its commands there, ends after that command with one
/// line saying so, on standard error or, when that is the one closed, standard output, and status 70, its trace
/// written out first. Before, a closed output dropped every later line without a word (a run exited 0 having
/// printed nothing after the command), and the next file the host opened took its number, and with it what the
/// host printed; a closed input failed the next read, naming no plugin.
struct LostStandardDescriptorTests {
    @Test(arguments: [
        ("CloseOutput", "standard output (descriptor 1)"), ("CloseError", "standard error (descriptor 2)"),
    ])
    func aRunWhosePluginClosesAStandardOutputEndsSayingSo(manager: String, descriptor: String) throws {
        let traces = try TemporaryDirectory()
        let trace = traces.path + "/run.jsonl"
        let lab = try FixtureRun(
            request: "hangy.close", manager: manager, script: "send hangy.close\nstack\n",
            arguments: ["--trace", trace])
        let run = lab.run

        let line =
            "flowhost: plugin code closed or replaced the host's \(descriptor) in `send hangy.close` "
            + "(\(lab.script):1); the host cannot go on; the run ended there, unfinished (exit 70)"
        #expect(run.status == 70, "\(run.standardError)")
        if manager == "CloseError" {
            #expect(run.standardOutput.hasSuffix(line + "\n"), "\(run.standardOutput)")
            #expect(run.standardError.isEmpty)
        } else {
            #expect(run.errorLines == [line], "\(run.standardError)")
        }
        #expect(!run.standardOutput.contains("stack:"), "the run went on: \(run.standardOutput)")
        let kinds = try readText(trace).split(separator: "\n").map {
            try JSONValue(parsing: String($0))["kind"]?.string ?? "?"
        }
        #expect(kinds.contains("input") && kinds.last == "screen", "the trace was not written out: \(kinds)")
    }

    /// Standard input, when the commands come from it; with `--script` the run reads nothing there and goes on.
    @Test func aRunReadingItsCommandsFromAClosedInputEndsSayingSoAndAScriptedOneGoesOn() throws {
        let lab = try FixtureRun(request: "hangy.close", manager: "CloseInput", script: "send hangy.close\nstack\n")
        #expect(lab.run.status == 0, "\(lab.run.standardError)")
        #expect(lab.run.standardOutput.contains("stack: welcome > closed"), "\(lab.run.standardOutput)")

        let piped = try Subprocess.flowhost(["run", lab.manifest], input: "send hangy.close\nstack\n")

        #expect(piped.status == 70, "\(piped.standardError)")
        #expect(
            piped.errorLines == [
                "flowhost: plugin code closed or replaced the host's standard input (descriptor 0) in `send hangy.close` "
                    + "(<stdin>:1); the host cannot go on; the run ended there, unfinished (exit 70)"
            ])
    }

    /// In a `--subjects` run the descriptors are looked at once a subject's script has run: the run ends
    /// after the first subject's, naming it.
    @Test func aSubjectsRunEndsAfterTheScriptOfTheSubjectWhosePluginClosedOne() throws {
        let lab = try FixtureRun(
            request: "hangy.close", manager: "CloseOutput", script: "send hangy.close\n",
            arguments: ["--subjects", "3", "--quiet"])

        #expect(lab.run.status == 70, "\(lab.run.standardError)")
        #expect(
            lab.run.errorLines == [
                "flowhost: plugin code closed or replaced the host's standard output (descriptor 1) in the script "
                    + "for subject-0001; the host cannot go on; the run ended there, unfinished (exit 70)"
            ])
    }
}
