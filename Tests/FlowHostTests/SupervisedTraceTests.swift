import FlowKit
import Foundation
import Glibc
import HostSupport
import Testing

@testable import FlowTraces

/// `flowhost run --supervise --trace FILE`: one trace for the whole run, whatever crashes. The supervisor holds
/// the file; each host writes it in turn, the restarted one carrying the session on from its restore; between
/// them the supervisor's `hostEnded` line says how the host ended. `replay` stops there, and `experiments
/// report` counts a subject exposed before a crash who reaches the goal after it.
struct SupervisedTraceTests {
    /// The trace's lines, each as a JSON object.
    static func lines(of path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aCrashLeavesOneTraceThatTheRestartedHostCarriesOn() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let trace = scenario.directory.path + "/t.jsonl"
        let script = try scenario.script(
            """
            send onboarding.show
            act next
            send crashy.trap
            act next
            expect content page 3

            """)

        let run = try scenario.flowhost(["run", scenario.manifest, "--supervise", "--script", script, "--trace", trace])

        #expect(run.status == 1, "\(run.standardError)")
        let crash = try #require(run.errorLines.first { $0.hasSuffix("; restarting") })
        let lines = try Self.lines(of: trace)
        #expect(lines.filter { $0["kind"] as? String == "trace" }.count == 1)
        #expect(lines.first?["script"] as? String == script)
        #expect(lines.filter { $0["kind"] as? String == "session" }.count == 1)
        #expect(lines.dropFirst().allSatisfy { $0["session"] as? Int == 1 })
        // One clock across the hosts.
        let times = lines.compactMap { $0["t"] as? Int }
        #expect(times.count == lines.count && times == times.sorted())
        // The restore is the session's next input, after the one the host crashed in.
        let inputs = lines.filter { $0["kind"] as? String == "input" }
        #expect(
            inputs.map { $0["command"] as? String ?? "?" } == [
                "start", "send onboarding.show", "act next", "send crashy.trap",
                "restore the snapshot saved before the crash", "act next",
            ])
        #expect(inputs.map { $0["input"] as? Int ?? -1 } == [0, 1, 2, 3, 4, 5])
        // The crashed host's lines reached the file up to the crash: the request it crashed in, then the
        // supervisor's line.
        let ended = try #require(lines.firstIndex { $0["kind"] as? String == "hostEnded" })
        #expect(lines.filter { $0["kind"] as? String == "hostEnded" }.count == 1)
        #expect(lines[ended - 1]["kind"] as? String == "handling")
        #expect(lines[ended - 1]["request"] as? String == "crashy.trap")
        #expect(lines[ended]["input"] as? Int == 3)
        #expect(lines[ended]["ending"] as? String == "crash")
        #expect(lines[ended]["plugin"] as? String == "crashy")
        #expect(lines[ended]["restarting"] as? Bool == true)
        #expect(lines[ended]["error"] as? String == crash)
        #expect(lines[ended + 1]["command"] as? String == "restore the snapshot saved before the crash")
        // The restarted host numbers its requests on: each id names one request of the session.
        let handling = lines.filter { $0["kind"] as? String == "handling" }.compactMap { $0["requestId"] as? Int }
        #expect(handling.count > 4 && handling == Array(1...handling.count), "\(handling)")
        let lastScreen = try #require(lines.last { $0["kind"] as? String == "screen" })
        #expect(lastScreen["input"] as? Int == 5)
        #expect(lastScreen["top"] as? String == "onboardingPage")

        // A replay runs what the first host ran, and stops where it crashed.
        let replay = try scenario.flowhost(["replay", trace])
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(
            replay.outputLines.filter { !$0.isEmpty } == [
                "replay identical up to where the recorded host ended: 1 session (its start and 2 steps), \(Self.events(in: lines, through: 2)) events and every screen as recorded (\(trace) against \(scenario.manifest))",
                "note: the recorded host ended in step 3, send crashy.trap (crash, plugin 'crashy'); its supervisor restarted it at a snapshot, which a replay does not recreate: the 2 inputs after it not replayed",
            ])
    }

    /// The events a replay compares in the inputs up to `input`: all but the inputs, screens and late ones.
    static func events(in lines: [[String: Any]], through input: Int) -> Int {
        lines.filter { line in
            let kind = line["kind"] as? String ?? ""
            return !["trace", "session", "input", "screen"].contains(kind) && line["late"] as? Bool != true
                && (line["input"] as? Int ?? .max) <= input
        }.count
    }

    /// The experiment demo's manifest, in `scenario`'s directory, with the crashy plugin's trapping manager
    /// routed; with `crashyVariant`, `create-flow` has a third variant, `crashy`, of weight 50, whose manager
    /// traps (subject `u1` gets it).
    static func experimentManifest(
        in scenario: SupervisedRunTests.Scenario, crashyVariant: Bool = false
    ) throws -> String {
        var manifest = try #require(
            JSONSerialization.jsonObject(with: Data(readText(Repository.path("manifests/experiment.json")).utf8))
                as? [String: Any])
        var plugins = try #require(manifest["plugins"] as? [String: Any])
        plugins["crashy"] = scenario.crashy
        manifest["plugins"] = plugins
        manifest["routes"] =
            try #require(manifest["routes"] as? [Any]) + [
                ["request": "crashy.trap", "plugin": "crashy", "manager": "Trap"]
            ]
        if crashyVariant {
            let experiments = try #require(manifest["experiments"] as? [String: Any])
            var experiment = try #require(experiments["create-flow"] as? [String: Any])
            let variants = try #require(experiment["variants"] as? [Any])
            experiment["variants"] =
                variants + [["name": "crashy", "plugin": "crashy", "manager": "Trap", "weight": 50]]
            manifest["experiments"] = ["create-flow": experiment]
        }
        return try scenario.directory.file(
            "experiment.json",
            containing: String(decoding: JSONSerialization.data(withJSONObject: manifest), as: UTF8.self))
    }

    @Test func aSubjectExposedBeforeACrashReachesTheGoalAfterIt() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let builds = BuildProducts.directory
        let path = try Self.experimentManifest(in: scenario)
        let script = try scenario.directory.file(
            "experiment.flow",
            containing: """
                # goal: catalog.detail
                act signIn
                act submit {"user": "u1"}
                act create
                act save {"title": "Tent"}
                send crashy.trap
                send catalog.detail {"id": 4}
                expect top itemDetail

                """)
        let trace = scenario.directory.path + "/t.jsonl"

        let run = try scenario.flowhost([
            "run", path, "--plugin-path", builds, "--supervise", "--script", script, "--trace", trace, "--quiet",
        ])
        let report = try scenario.flowhost(["experiments", "report", trace, "--json"])

        #expect(run.errorLines.contains { $0.hasSuffix("; restarting") }, "\(run.standardError)")
        #expect(report.status == 0, "\(report.standardError)")
        let document = try #require(
            JSONSerialization.jsonObject(with: Data(report.standardOutput.utf8)) as? [String: Any])
        #expect(document["goal"] as? String == "catalog.detail")
        let experiment = try #require((document["experiments"] as? [[String: Any]])?.first)
        let variants = try #require(experiment["variants"] as? [[String: Any]])
        #expect(variants.map { $0["exposed"] as? Int ?? -1 }.reduce(0, +) == 1, "\(variants)")
        #expect(variants.map { $0["reached"] as? Int ?? -1 }.reduce(0, +) == 1, "\(variants)")
    }

    /// A host that crashes in its start, before the supervisor has a snapshot, is followed by one that starts
    /// afresh, restoring the person's `--restore FILE` again: a session of its own, not the one before carried
    /// on, and its restore named as the file it is.
    @Test func aHostRestartedWithoutTheSupervisorsSnapshotBeginsASessionOfItsOwn() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let saving = try scenario.script("send crashy.fragile\nsave \(scenario.directory.path)/saved.json\n")
        let saved = try scenario.flowhost(["run", scenario.manifest, "--script", saving, "--quiet"])
        try #require(saved.status == 0, "\(saved.standardError)")
        // The same snapshot, its second step the request whose manager traps.
        let snapshot = try scenario.directory.file(
            "trap.json",
            containing: readText(scenario.directory.path + "/saved.json").replacingOccurrences(
                of: "\"crashy.fragile\"", with: "\"crashy.trap\""))
        let trace = scenario.directory.path + "/t.jsonl"

        let run = try scenario.flowhost([
            "run", scenario.manifest, "--supervise", "--restore", snapshot, "--script",
            try scenario.script("send crashy.fragile\n"), "--trace", trace,
        ])

        #expect(run.errorLines.contains { $0.hasSuffix("; restarting") }, "\(run.standardError)")
        let lines = try Self.lines(of: trace)
        #expect(lines.filter { $0["kind"] as? String == "session" }.compactMap { $0["session"] as? Int } == [1, 2])
        let inputs = lines.filter { $0["kind"] as? String == "input" }
        #expect(
            inputs.map { "\($0["session"] ?? "?") \($0["input"] ?? "?") \($0["command"] ?? "?")" } == [
                "1 0 restore \(snapshot)", "2 0 restore \(snapshot)", "2 1 send crashy.fragile",
            ])
    }

    /// A variant whose manager crashes the host fails its subjects' request as one whose manager throws does, and
    /// the report says so; the restarted host's restore is no step of the person's towards the goal.
    @Test func aVariantThatCrashesTheHostIsSaidToHaveFailed() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let path = try Self.experimentManifest(in: scenario, crashyVariant: true)
        let script = try scenario.directory.file(
            "experiment.flow",
            containing: """
                # goal: catalog.detail
                act signIn
                act submit {"user": "u1"}
                act create
                send catalog.detail {"id": 1}
                expect top itemDetail

                """)
        let trace = scenario.directory.path + "/t.jsonl"

        let run = try scenario.flowhost([
            "run", path, "--plugin-path", BuildProducts.directory, "--supervise", "--script", script, "--trace", trace,
            "--quiet",
        ])
        let report = try scenario.flowhost(["experiments", "report", trace, "--json"])

        #expect(run.errorLines.contains { $0.hasSuffix("; restarting") }, "\(run.standardError)")
        let lines = try Self.lines(of: trace)
        let exposure = try #require(lines.first { $0["kind"] as? String == "exposure" })
        try #require(exposure["variant"] as? String == "crashy", "u1 gets the crashy variant")
        #expect(report.status == 0, "\(report.standardError)")
        let document = try JSONValue(parsing: report.standardOutput)
        #expect(
            document["warnings"] == [
                "experiment 'create-flow' variant 'crashy' failed for 1 of its 1 exposed subjects (catalog.create: the host crashed in plugin 'crashy'): its figures measure the failure, not the variant"
            ])
        let crashy = try #require(document["experiments"]?[0]?["variants"]?.array?.last)
        #expect(crashy["name"] == "crashy" && crashy["exposed"] == 1 && crashy["reached"] == 1)
        // `act create`, then `send catalog.detail`: the restore between them is the host's, not the person's.
        #expect(crashy["medianSteps"] == 2)
    }

    /// `graph --trace` counts the transitions people took: the restarted host's restore replays the ones they
    /// took before the crash, which are not taken again.
    @Test func theGraphLeavesTheRestoreOut() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let script = try scenario.script("act getStarted\nsend crashy.trap\nexpect top onboardingPage\n")
        let trace = scenario.directory.path + "/t.jsonl"
        let run = try scenario.flowhost(["run", scenario.manifest, "--supervise", "--script", script, "--trace", trace])
        try #require(run.errorLines.contains { $0.hasSuffix("; restarting") }, "\(run.standardError)")

        let graph = try scenario.flowhost(["graph", scenario.manifest, "--trace", trace, "--format", "json"])

        #expect(graph.status == 0, "\(graph.standardError)")
        let edges = try #require(try JSONValue(parsing: graph.standardOutput)["edges"]?.array)
        func count(_ from: String, _ to: String) -> JSONValue? {
            edges.first { $0["from"]?.string == from && $0["to"]?.string == to }?["count"]
        }
        #expect(count("entry:start", "request:launch") == 1)
        #expect(count("request:onboarding.show", "manager:welcome.Onboarding") == 1)
        #expect(count("request:crashy.trap", "manager:crashy.Trap") == 1)
        #expect(!edges.contains { $0["label"]?.string == "restore" }, "\(edges)")
    }

    /// A trace of the demo run with `script`, unsupervised, in `directory`; its path and lines, for a test to
    /// write again with a supervisor's line of its own.
    static func demoTrace(of script: String, in directory: TemporaryDirectory) throws -> (path: String, lines: [String])
    {
        let trace = directory.path + "/t.jsonl"
        let run = try Subprocess.flowhost([
            "run", Repository.path("manifests/demo.json"), "--script", try directory.file("s.flow", containing: script),
            "--trace", trace, "--quiet",
        ])
        try #require(run.status == 0, "\(run.standardError)")
        return (trace, try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init))
    }

    /// A host that ended after an input it finished (at the cap of generations) leaves that input to the replay,
    /// which stops after it: the inputs after ran on the host restarted at the snapshot.
    @Test func aReplayStopsAfterAnInputTheHostFinishedBeforeItEnded() throws {
        let directory = try TemporaryDirectory()
        var (trace, lines) = try Self.demoTrace(of: "act getStarted\nact next\nact next\n", in: directory)
        // The supervisor's line after input 1's screen, as a restart at the cap writes it.
        let screen = try #require(
            lines.firstIndex { $0.hasPrefix(#"{"kind":"screen""#) && $0.contains(#""input":1,"#) })
        lines.insert(
            #"{"kind":"hostEnded","t":1,"session":1,"input":1,"ending":"cap","plugin":"welcome","error":"x","restarting":true}"#,
            at: screen + 1)
        _ = try directory.file("t.jsonl", containing: lines.joined(separator: "\n") + "\n")

        let replay = try Subprocess.flowhost(["replay", trace])

        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(
            replay.outputLines.first?.hasPrefix(
                "replay identical up to where the recorded host ended: 1 session (its start and 1 step), ") == true)
        #expect(
            replay.outputLines.dropFirst().first
                == "note: the recorded host ended after step 1, act getStarted (cap, plugin 'welcome'); its supervisor restarted it at a snapshot, which a replay does not recreate: the 2 inputs after it not replayed"
        )
    }

    /// A supervisor that gave up in the middle of the trace's last input (the restart limit reached) says so in
    /// its line: the replay names the end it says, not a run stopped or killed there.
    @Test func aReplaySaysTheSupervisorEndedTheRunWhereItGaveUp() throws {
        let directory = try TemporaryDirectory()
        var (trace, lines) = try Self.demoTrace(of: "act getStarted\nact next\n", in: directory)
        // Input 2 unfinished, without its screen, then the supervisor's line.
        let screen = try #require(lines.lastIndex { $0.hasPrefix(#"{"kind":"screen""#) && $0.contains(#""input":2,"#) })
        lines =
            Array(lines[..<screen]) + [
                #"{"kind":"hostEnded","t":1,"session":1,"input":2,"ending":"crash","plugin":"welcome","error":"x; giving up","restarting":false}"#
            ]
        _ = try directory.file("t.jsonl", containing: lines.joined(separator: "\n") + "\n")

        let replay = try Subprocess.flowhost(["replay", trace])
        let json = try Subprocess.flowhost(["replay", trace, "--json"])

        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(
            replay.outputLines.dropFirst().first
                == "note: the recorded host ended in step 2, act next (crash, plugin 'welcome'); its supervisor ended the run there",
            "\(replay.outputLines)")
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(document["cutShort"] == .null)
        #expect(document["hostEnded"]?["restarted"] == false && document["hostEnded"]?["restoredSnapshot"] == false)
    }

    /// A supervisor that could not start the host it was restarting (its executable gone) says so in a second
    /// line: the replay names the end the first says, and no restart, since none followed.
    @Test func aReplaySaysNoRestartFollowedWhereTheSupervisorCouldNotStartOne() throws {
        let directory = try TemporaryDirectory()
        var (trace, lines) = try Self.demoTrace(of: "act getStarted\nact next\n", in: directory)
        let screen = try #require(lines.lastIndex { $0.hasPrefix(#"{"kind":"screen""#) && $0.contains(#""input":2,"#) })
        lines =
            Array(lines[..<screen]) + [
                #"{"kind":"hostEnded","t":1,"session":1,"input":2,"ending":"crash","plugin":"welcome","error":"x; restarting","restarting":true}"#,
                #"{"kind":"hostEnded","t":2,"session":1,"input":2,"ending":"ended","error":"flowhost: cannot supervise: cannot start x","restarting":false}"#,
            ]
        _ = try directory.file("t.jsonl", containing: lines.joined(separator: "\n") + "\n")

        let replay = try Subprocess.flowhost(["replay", trace])

        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(
            replay.outputLines.dropFirst().first
                == "note: the recorded host ended in step 2, act next (crash, plugin 'welcome'); its supervisor ended the run there",
            "\(replay.outputLines)")
    }

    /// The supervisor reads where the hosts left the file: the last whole line's session and input, and the
    /// session's highest request id, a line a killed host left half written taken off first, however long the
    /// last line; what is written next starts a line of its own.
    @Test func theTailIsWhereTheLastWholeLineLeftTheSession() throws {
        let directory = try TemporaryDirectory()
        let long = String(repeating: "x", count: 200_000)
        let path = try directory.file(
            "t.jsonl",
            containing: """
                {"kind":"trace","t":0,"session":0,"input":0}
                {"kind":"session","t":1,"session":1,"input":0}
                {"kind":"handling","t":2,"session":1,"input":0,"requestId":9,"request":"launch"}
                {"kind":"session","t":3,"session":2,"input":0}
                {"kind":"handling","t":4,"session":2,"input":1,"requestId":3,"request":"a","payload":{"requestId":99}}
                {"kind":"handling","t":5,"session":2,"input":1,"requestId":4,"request":"b"}
                {"kind":"handled","t":6,"session":2,"input":1,"requestId":3,"request":"a"}
                {"kind":"input","t":7,"session":2,"input":7,"command":"\(long)"}
                {"kind":"handling","t":9,"session":2,"in
                """)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        defer { close(descriptor) }

        let position = TraceTail.position(of: descriptor)
        _ = write(descriptor, "{}\n", 3)

        #expect(position == TraceTail.Position(session: 2, input: 7, requestId: 4))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\(long)\"}\n{}\n"))
    }
}
