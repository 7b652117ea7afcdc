import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowTraces

/// `run --subjects`: one session a subject, each running the script with its own id, into one trace the
/// report reads.
@MainActor
struct SubjectsRunTests {
    @Test func subjectsRunOneSessionEachIntoOneTraceTheReportReads() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/subjects.jsonl"
        let run = try Subprocess.flowhost(
            [
                "run", "manifests/experiment.json", "--subjects", "40", "--script", "manifests/experiment.flow",
                "--trace", path,
            ], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.outputLines.first
                == "ran manifests/experiment.flow for 40 subjects (subject-0001 ... subject-0040): every one to the end"
        )

        let trace = try Trace.load(path: path)
        #expect(trace.goal == "catalog.detail")
        #expect(trace.header["subjects"] == 40)
        #expect(trace.sessions.map(\.subject) == SubjectRunner.subjects(40))
        let manifest = try Manifest.load(path: Repository.path("manifests/experiment.json"))
        let experiment = try #require(manifest.experiments["create-flow"])
        for session in trace.sessions {
            let exposure = try #require(session.inputs.flatMap(\.events).first { $0.kind == .exposure })
            #expect(exposure["subject"]?.string == session.subject)
            #expect(
                exposure["variant"]?.string
                    == ExperimentAssigner.variant(of: session.subject ?? "", in: experiment).name)
        }

        let report = try ExperimentReport(traces: [trace], goal: "catalog.detail")
        let variants = try #require(report.experiments.first?.variants)
        #expect(variants.map(\.name) == ["classic", "express"])
        #expect(variants.map(\.exposed).reduce(0, +) == 40)
        #expect(variants.allSatisfy { $0.reached == $0.exposed }, "every subject sees the new item")
        #expect(variants.map(\.medianSteps) == [3, 2], "express shows the item as it saves it: a step fewer")

        let printed = try Subprocess.flowhost(["experiments", "report", path])
        #expect(printed.status == 0)
        #expect(printed.outputLines.first == "goal: catalog.detail, from 1 trace (\(path))")
        #expect(printed.errorLines.filter { !$0.isEmpty }.isEmpty, "\(printed.standardError)")

        // A run killed between two subjects: the report says how many of its subjects the trace holds, and leaves
        // out the last, which a trace without its `subjectsEnded` line cannot tell from one cut in its script.
        let lines = try readText(path).split(separator: "\n")
        let firstOfTheLast = try #require(
            lines.firstIndex { $0.contains(#""kind":"session","t":"#) && $0.contains(#""session":31,"#) })
        let stopped = try directory.file(
            "stopped.jsonl", containing: lines[..<firstOfTheLast].joined(separator: "\n") + "\n")
        let short = try Subprocess.flowhost(["experiments", "report", stopped])
        #expect(short.status == 0)
        #expect(
            short.errorLines.first
                == "flowhost: warning: \(stopped) holds 29 of the 40 subjects its run was to simulate: the run stopped early (killed, or its trace could not be written further: a full disk), and its last subject, subject-0030, may be cut short: the report leaves it out"
        )
        // Joined whole to a whole trace, before it or after it, the stopped run is still said, where the sessions
        // of both were counted against the first header's subjects, and each header counted as a session. It is
        // another recording (another id): one recording joined twice would be read once, where it is first.
        let whole = lines.joined(separator: "\n") + "\n"
        let stoppedText = try readText(stopped).replacing(
            /"recording":"[0-9a-f]{32}"/, with: #""recording":""# + String(repeating: "0", count: 32) + #"""#)
        #expect(stoppedText != (try readText(stopped)))
        for (name, text, line) in [
            ("stoppedLast.jsonl", whole + stoppedText, lines.count + 1), ("stoppedFirst.jsonl", stoppedText + whole, 1),
        ] {
            let joined = try directory.file(name, containing: text)
            let read = try Subprocess.flowhost(["experiments", "report", joined])
            let place = line == 1 ? joined : "the trace joined at \(joined):\(line)"
            #expect(read.status == 0)
            #expect(
                read.errorLines.filter { !$0.isEmpty }
                    == [
                        "flowhost: warning: \(place) holds 29 of the 40 subjects its run was to simulate: the run stopped early (killed, or its trace could not be written further: a full disk), and its last subject, subject-0030, may be cut short: the report leaves it out"
                    ])
            // The sessions a replay says it replays: the second header begins none.
            #expect(try TraceReader(path: joined).readToEnd() == 70)
        }

        // A mistyped goal: nobody reaches it, and the report says why rather than show 0% alone.
        let mistyped = try Subprocess.flowhost(["experiments", "report", path, "--goal", "catalog.detial"])
        #expect(mistyped.status == 0)
        #expect(
            mistyped.errorLines.first
                == "flowhost: warning: no request named 'catalog.detial' was handled in these traces, so nobody reached it; did you mean 'catalog.detail'?"
        )
    }

    /// A script line is parsed once for every subject: each subject's inputs are its commands, trimmed and
    /// with its id, and no comment, `expect` or query is one, indented or not.
    @Test func eachSubjectRecordsItsScriptsCommandsAsInputs() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file(
            "subject.flow",
            containing: """
                # a comment naming $SUBJECT
                  expect stack welcome
                \tact signIn\t
                    act submit {"user": "$SUBJECT"}
                  # indented $SUBJECT comment
                  stack
                expect outcome handled by catalog.Home

                """)
        let path = directory.path + "/inputs.jsonl"
        let run = try Subprocess.flowhost(
            ["run", "manifests/experiment.json", "--subjects", "2", "--script", script, "--trace", path],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        #expect(run.status == 0, "\(run.standardError)")

        let trace = try Trace.load(path: path)
        #expect(trace.sessions.count == 2)
        for session in trace.sessions {
            let subject = try #require(session.subject)
            #expect(
                session.inputs.map(\.command) == ["start", "act signIn", #"act submit {"user": "\#(subject)"}"#])
            #expect(session.inputs.map { $0.record["at"]?.string } == [nil, "\(script):3", "\(script):4"])
        }
    }

    @Test func aSubjectsScriptMayExpectARequestToFindNoRouteOnTheNextLine() throws {
        let directory = try TemporaryDirectory()
        let expected = try directory.file(
            "expected.flow", containing: "send settings.abuot\n# the typo is the test\nexpect outcome unhandled\n")
        let other = try directory.file("other.flow", containing: "send settings.abuot\nstack\n")
        func run(_ script: String) throws -> Subprocess {
            try Subprocess.flowhost(
                ["run", "manifests/experiment.json", "--subjects", "2", "--script", script, "--quiet"],
                environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        }

        let passed = try run(expected)
        let stopped = try run(other)

        #expect(passed.status == 0, "\(passed.standardError)")
        #expect(stopped.status == 1)
        #expect(
            stopped.errorLines == [
                "\(other):1: subject subject-0001: error: no route handles settings.abuot; did you mean 'settings.about'?"
            ])
        #expect(stopped.standardOutput.isEmpty, "stack did not run")
    }

    /// A subject's run skips blank lines and comments, and names the line it stopped at as the script numbers it.
    @Test func aSubjectsFailureNamesItsLineAmongBlankLinesAndComments() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file(
            "s.flow", containing: "# signs in\n\nact signIn\n   # and looks\nexpect top nowhere\nexpect top signIn\n")
        let run = try Subprocess.flowhost(
            ["run", "manifests/experiment.json", "--subjects", "2", "--script", script, "--quiet"],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "\(script):5: subject subject-0001: expectation failed: top is 'signIn', expected 'nowhere'"
            ],
            "\(run.standardError)")
    }

    /// Runs of 300 and of 20,000 subjects simulate the same first 300 people: a report of both traces counts
    /// each of them once, as the SQL over them does.
    @Test func aSubjectsIdDoesNotDependOnHowManySubjectsTheRunSimulates() {
        let small = SubjectRunner.subjects(300)
        let large = SubjectRunner.subjects(20_000)
        #expect(Array(large.prefix(300)) == small)
        #expect(large[9_998] == "subject-9999" && large[9_999] == "subject-10000" && large.last == "subject-20000")
        #expect(SubjectRunner.subjects(1_000_000).last == "subject-1000000")
        #expect(Set(large).count == large.count)
    }
}
