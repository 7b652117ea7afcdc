import Testing

/// A run without a supervisor whose standard input, output or error plugin code closes (the HangyPlugin
/// fixture's `Close*` managers) ends after that command with one line saying so, on standard error or, when
/// that is the one closed, standard output, and status 70. Before, a closed output dropped every later line
/// without a word (a run exited 0 having printed nothing after the command), and the next file the host opened
/// took its number, and with it what the host printed; a closed input failed the next read, naming no plugin.
struct LostStandardDescriptorTests {
    @Test(arguments: [
        ("CloseOutput", "standard output (descriptor 1)"), ("CloseError", "standard error (descriptor 2)"),
        ("CloseInput", "standard input (descriptor 0)"),
    ])
    func aRunWhosePluginClosesAStandardDescriptorEndsSayingSo(manager: String, descriptor: String) throws {
        let lab = try FixtureRun(request: "hangy.close", manager: manager, script: "send hangy.close\nstack\n")
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
