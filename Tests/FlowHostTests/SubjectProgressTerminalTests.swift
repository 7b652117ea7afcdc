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

    @Test func aFileOrAPipeSeesNoProgress() throws {
        let run = try Subprocess.flowhost(arguments)

        #expect(run.status == 0)
        #expect(run.standardError.isEmpty, "\(run.standardError)")
        #expect(run.standardOutput.isEmpty)
    }
}
