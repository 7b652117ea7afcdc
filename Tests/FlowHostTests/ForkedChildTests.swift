import FlowKit
import Glibc
import Testing

/// A child that plugin code forks and that comes back into the host's code (the HangyPlugin fixture's
/// `ForkReturn` manager, whose child's `execv` fails and which returns anyway, as a common bug has it) ends
/// itself with one line naming the plugin, and the host goes on alone. Before, the child printed the
/// command's output a second time, then hung for ever (the host's other threads are not in it), holding the
/// host's standard output, so that a pipe reading it never ended (the fixture's child has an `alarm` of 5 s,
/// so that a host that lets it run on fails the test rather than hangs it).
struct ForkedChildTests {
    @Test func aForkedChildThatComesBackEndsWithOneLineNamingThePluginAndTheOutputIsNotDoubled() throws {
        let lab = try FixtureRun(request: "hangy.fork", manager: "ForkReturn", script: "send hangy.fork\nstack\n")
        let run = lab.run
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.filter { $0.contains("presented forkedBack") }.count == 1, "\(run.standardOutput)")
        #expect(run.outputLines.filter { $0.contains("stack: welcome > forkedBack") }.count == 1)
        #expect(
            run.errorLines == [
                "flowhost: plugin 'hangy' (\(lab.hangy)) forked the host, and the child came back into the host's code in "
                    + "`send hangy.fork` (\(lab.script):1) instead of running a program or calling _exit; ended the child "
                    + "(the host goes on)"
            ], "\(run.standardError)")
    }
}

/// The same in `run --subjects`, which runs each subject's script itself: before, the child that came back ran
/// the remaining subjects as a host of its own, and forked in each, so that N subjects made 2^N processes, each
/// printing the run's summary and writing the trace.
struct ForkedChildInSubjectsTests {
    @Test func eachSubjectsChildThatComesBackEndsAndTheRunIsWrittenOnce() throws {
        let traces = try TemporaryDirectory()
        let trace = traces.path + "/run.jsonl"
        let lab = try FixtureRun(
            request: "hangy.fork", manager: "ForkReturn", script: "send hangy.fork\nexpect top forkedBack\n",
            arguments: ["--subjects", "3", "--trace", trace])
        let run = lab.run
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.outputLines.filter { $0.hasPrefix("ran ") }
                == ["ran \(lab.script) for 3 subjects (subject-0001 ... subject-0003): every one to the end"],
            "\(run.standardOutput)")
        #expect(
            run.errorLines.sorted()
                == ["subject-0001", "subject-0002", "subject-0003"].map {
                    "flowhost: plugin 'hangy' (\(lab.hangy)) forked the host, and the child came back into the host's "
                        + "code in `send hangy.fork` (\(lab.script):1) for \($0) instead of running a program or calling "
                        + "_exit; ended the child (the host goes on)"
                }, "\(run.standardError)")
        let sessions = try readText(trace).split(separator: "\n").filter {
            $0.contains(#""kind":"session""#)
        }
        #expect(sessions.count == 3, "\(sessions)")
    }
}

/// The same in a supervised run's trace, which each host writes a line at a time: before, the child that came
/// back wrote the command's lines into it a second time (its `presented`, `handled` and `screen`), so that a
/// replay of the trace diverged there.
struct ForkedChildInSupervisedTraceTests {
    @Test func theChildThatComesBackWritesNothingToTheTrace() throws {
        let traces = try TemporaryDirectory()
        /// The kinds of the trace's lines after its header, and their inputs, for a run with `arguments`.
        func kinds(_ arguments: [String]) throws -> [String] {
            let trace = traces.path + "/\(arguments.count).jsonl"
            let lab = try FixtureRun(
                request: "hangy.fork", manager: "ForkReturn", script: "send hangy.fork\nstack\n",
                arguments: arguments + ["--trace", trace])
            #expect(lab.run.status == 0, "\(lab.run.standardError)")
            return try readText(trace).split(separator: "\n").dropFirst().map { line in
                let event = try JSONValue(parsing: String(line))
                return "\(event["kind"]?.string ?? "?") \(event["input"]?.int ?? -1)"
            }
        }

        let supervised = try kinds(["--supervise"])

        #expect(supervised == (try kinds([])), "\(supervised)")
        #expect(supervised.filter { $0 == "presented 1" }.count == 1)
    }
}
