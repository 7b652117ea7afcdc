import Testing

/// `run --subjects N` on a terminal says how far it has got, on one line it rewrites and erases at the end:
/// a run of many subjects with `--quiet` printed nothing for minutes. Into a file or a pipe it prints nothing
/// of the kind.
struct SubjectProgressTerminalTests {
    private let arguments = [
        "run", Repository.path("manifests/experiment.json"), "--subjects", "300",
        "--script", Repository.path("manifests/experiment.flow"), "--quiet",
    ]
    private let erase = "\r\u{1B}[K"

    @Test func aTerminalSeesHowManySubjectsHaveRunAndThenAnEmptyLine() throws {
        let run = try Subprocess.flowhost(arguments, terminal: true)

        #expect(run.status == 0, "\(run.standardOutput)")
        let drawn = run.standardOutput.split(separator: erase, omittingEmptySubsequences: false).dropFirst()
        // The first subject at once, the last at the end, and the line erased after it.
        #expect(drawn.first == "subjects: 1 of 300", "\(drawn)")
        #expect(drawn.dropLast().last == "subjects: 300 of 300", "\(drawn)")
        #expect(drawn.last == "", "nothing is left on the line: \(drawn)")
        let counts = drawn.dropLast().compactMap { Int($0.split(separator: " ")[1]) }
        #expect(counts == counts.sorted(), "\(counts)")
        #expect(run.standardOutput.hasPrefix(erase), "nothing else printed: \(run.standardOutput)")
    }

    /// A warning printed while the line is shown (plugin code changed the working directory, once a subject)
    /// starts at the line's beginning, the progress erased: it was written after `subjects: 1 of 30`.
    @Test func aWarningPrintedWhileTheLineIsShownErasesItFirst() throws {
        let scenario = try WorkingDirectoryTests.Scenario()
        _ = try scenario.start.file("s.flow", containing: "send hangy.wander\n")

        let run = try Subprocess.run(
            "/bin/sh", try scenario.commandLine(["--script", "s.flow", "--subjects", "30", "--quiet"]),
            environment: ["TERM": "xterm", "NO_COLOR": "1"], terminal: true)

        #expect(run.status == 0, "\(run.standardOutput)")
        let lines = run.standardOutput.split(separator: "\r\n", omittingEmptySubsequences: false)
        let warnings = lines.filter { $0.contains("flowhost: warning: ") }
        #expect(!warnings.isEmpty, "\(run.standardOutput)")
        // One a line: none was written after another on its line.
        #expect(
            run.standardOutput.ranges(of: "flowhost: warning: ").count == warnings.count, "\(run.standardOutput)")
        // What a terminal shows of each: what follows the last erase on its line.
        for line in warnings {
            let shown = line.split(separator: erase, omittingEmptySubsequences: false).last ?? ""
            #expect(shown.hasPrefix("flowhost: warning: "), "\(line)")
        }
    }

    @Test func aFileOrAPipeSeesNoProgress() throws {
        let run = try Subprocess.flowhost(arguments)

        #expect(run.status == 0)
        #expect(run.standardError.isEmpty, "\(run.standardError)")
        #expect(run.standardOutput.isEmpty)
    }
}
