import FlowKit
import Glibc
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import FlowTraces

/// Traces: what a run records, that it reads back as written, and what redaction leaves out.
@MainActor
struct TraceTests {
    @Test func everyKindRoundTripsThroughItsLine() throws {
        for (index, kind) in TraceEvent.Kind.all.enumerated() {
            let event = TraceEvent(
                kind, time: UInt64(index) * 1_000, session: 2, input: index,
                fields: ["request": "catalog.create", "payload": ["title": "Tent", "tags": [1, 2.5, nil, true]]])

            let read = try TraceEvent(json: try JSONValue(parsing: event.line))

            #expect(read == event, "\(kind)")
            #expect(!event.line.contains("\n"))
        }
    }

    @Test func aTracedRunRecordsEachInputWithItsEventsItsPluginsAndItsScreen() async throws {
        let run = try TracedRun("manifests/demo.json")
        await run.start()
        await run.perform("act getStarted")
        await run.perform("show")  // a query: not an input
        await run.perform("expect top onboardingPage")  // an expectation: not an input
        await run.perform("act next")
        await run.perform("back")
        await run.perform("act nonsense")

        let inputs = run.events.filter { $0.kind == .input }
        #expect(
            inputs.map { $0["command"]?.string } == ["start", "act getStarted", "act next", "back", "act nonsense"])
        #expect(inputs.map(\.input) == [0, 1, 2, 3, 4])
        #expect(run.events.filter { $0.kind == .screen }.count == 5)

        let launch = try #require(run.events.first { $0.kind == .handling && $0["request"] == "launch" })
        #expect(launch["manager"] == "welcome.Launch")
        #expect(launch["plugin"] == "welcome")
        #expect(launch["generation"] == 1)
        #expect(launch["digest"]?.string?.count == 64)
        #expect(launch.input == 0)
        let handled = try #require(run.events.first { $0.kind == .handled && $0["request"] == "launch" })
        #expect((handled["startNs"]?.double ?? 0) > 0, "how long the manager's start took")

        // The tour is a child flow: its manager has no plugin in its name, but the child's opener does.
        let page = try #require(run.events.first { $0.kind == .handling && $0["manager"] == "OnboardingPage" })
        #expect(page["plugin"] == "welcome")
        #expect(page["by"] == "welcome.Onboarding")
        #expect(page["depth"] == 1)
        let presented = try #require(run.events.first { $0.kind == .presented && $0["module"] == "welcome" })
        #expect(presented["actions"] == ["getStarted", "signIn"])
        #expect(presented["style"] == "root")

        let screens = run.events.filter { $0.kind == .screen }
        #expect(screens[2]["stack"] == ["welcome", "onboardingPage", "onboardingPage"])
        #expect(screens[2]["content"]?["page"] == 2)
        #expect(screens[4]["status"] == "error")
        #expect(screens[4]["error"]?.string?.contains("has no action 'nonsense'") == true)
    }

    @Test func guardsResultsAndExposuresAreRecorded() async throws {
        let demo = try TracedRun("manifests/demo.json")
        await demo.start()
        await demo.perform("open demo://items/2")
        await demo.perform("act submit {\"user\": \"ada\"}")
        await demo.perform("back")
        await demo.perform("act create")
        await demo.perform("act save {\"title\": \"Tent\"}")

        let redirect = try #require(demo.events.first { $0.kind == .redirecting })
        #expect(redirect["guard"] == "signedIn")
        #expect(redirect["redirect"] == "auth.signIn")
        #expect(redirect["payload"] == ["id": 2])
        #expect(demo.events.contains { $0.kind == .held && $0["request"] == "catalog.detail" })
        #expect(demo.events.contains { $0.kind == .resuming && $0["request"] == "catalog.detail" })
        let finished = try #require(demo.events.first { $0.kind == .childFinished })
        #expect(finished["child"] == "createItem")
        #expect(finished["result"] == ["status": "completed", "value": ["id": 4, "title": "Tent"]])
        #expect(demo.events.contains { $0.kind == .managerEnded && $0["reason"] == "finished" })

        let experiment = try TracedRun("manifests/experiment.json")
        await experiment.start()
        await experiment.perform("act signIn")
        await experiment.perform("act submit {\"user\": \"grace\"}")
        await experiment.perform("act create")
        let exposure = try #require(experiment.events.first { $0.kind == .exposure })
        #expect(exposure["subject"] == "grace")
        #expect(exposure["experiment"] == "create-flow")
        #expect(exposure["variant"] == "express")
        let express = try #require(
            experiment.events.first { $0.kind == .handling && $0["request"] == "catalog.create" })
        #expect(express["manager"] == "express.ExpressCreate [create-flow:express]")
        #expect(express["plugin"] == "express")
        #expect(express["experiment"] == "create-flow")
        #expect(express["variant"] == "express")
        #expect(experiment.header?["experiments"]?["create-flow"]?["variants"]?[1]?["weight"] == 50)
    }

    @Test func aWrittenTraceReadsBackAsRecorded() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/run.jsonl"
        let writer = try TraceWriter(path: path)
        let run = try TracedRun("manifests/demo.json") { writer.write($0) }
        await run.start()
        await run.perform("act signIn")
        await run.perform("act submit")
        run.recorder.finish()
        writer.close()

        let trace = try Trace.load(path: path)

        #expect([trace.header] + trace.events == run.all)
        #expect(writer.count == run.all.count)
        #expect(trace.sessions.count == 1)
        #expect(trace.sessions[0].inputs.map(\.command) == ["start", "act signIn", "act submit"])
        #expect(trace.sessions[0].inputs.allSatisfy { $0.screen != nil })
        #expect(trace.manifest == Repository.path("manifests/demo.json"))
    }

    @Test func redactedMembersAndSubjectsNeverReachTheTrace() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/redacted.jsonl"
        let writer = try TraceWriter(path: path)
        let run = try TracedRun("manifests/experiment.json", redacting: ["user", "title"]) { writer.write($0) }
        await run.start()
        await run.perform("act signIn")
        await run.perform("act submit {\"user\": \"grace\"}")
        await run.perform("act create")
        await run.perform("act save {\"title\": \"Stove\"}")
        await run.perform("tab 1")
        run.recorder.finish()
        writer.close()
        let text = try readText(path)

        #expect(!text.contains("grace"))
        #expect(!text.contains("Stove"))
        let trace = try Trace.load(path: path)
        #expect(trace.header["redacted"] == ["title", "user"])
        let inputs = trace.sessions[0].inputs
        #expect(inputs[2].command == #"act submit {"user":"<redacted>"}"#)
        #expect(inputs[5].screen?["content"]?["user"] == "<redacted>", "the settings screen shows the user")
        let add = try #require(trace.events.first { $0.kind == .handling && $0["request"] == "catalog.item.add" })
        #expect(add["payload"] == ["title": "<redacted>"])
        let subject = try #require(trace.events.first { $0.kind == .exposure }?["subject"]?.string)
        #expect(subject.hasPrefix("subject-") && subject.count == 20, "a pseudonym: \(subject)")
        #expect(TraceRedaction(keys: ["user"]).subject("grace", path: "user.id") != subject, "salted per trace")
        #expect(run.recorder.redaction.subject("grace", path: "user.id") == subject, "the same within the trace")
        #expect(TraceRedaction(keys: ["title"]).subject("grace", path: "user.id") == "grace")
    }

    @Test func aTraceThatIsNotOneSaysWhereAndWhy() {
        let header = #"{"kind":"trace","t":0,"session":0,"input":0,"version":1}"#
        #expect(throws: TraceError("not JSON: expected string key in object", file: "t.jsonl", line: 2)) {
            _ = try Trace.parse(header + "\n{oops\n", file: "t.jsonl")
        }
        // A pretty-printed JSON file given as a trace (a manifest is said to be one: ManifestGivenAsTraceTests).
        #expect(
            throws: TraceError(
                "not JSON: unexpected end of input; a trace has one JSON object per line, as flowhost run --trace FILE writes it",
                file: "data.json", line: 1)
        ) {
            _ = try Trace.parse("{\n  \"items\": 1\n}\n", file: "data.json")
        }
        #expect(
            throws: TraceError(
                "the 'input' event needs \"t\", a whole number of nanoseconds from 0 to below 2^63 (about 292 years)",
                file: "t.jsonl", line: 2)
        ) {
            _ = try Trace.parse(header + "\n" + #"{"kind":"input","session":1,"input":1}"#, file: "t.jsonl")
        }
        #expect(throws: TraceError("the trace is empty; record one with flowhost run --trace FILE", file: "t.jsonl")) {
            _ = try Trace.parse("\n", file: "t.jsonl")
        }
        #expect(
            throws: TraceError("trace format version 9 is not one this flowhost reads (1 to 3)", file: "t", line: 1)
        ) {
            _ = try Trace.parse(#"{"kind":"trace","t":0,"session":0,"input":0,"version":9}"#, file: "t")
        }
    }

    @Test func runWritesATraceAndRefusesRedactionWithoutOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/demo.jsonl"
        let run = try Subprocess.flowhost(
            ["run", "manifests/demo.json", "--script", "manifests/demo.flow", "--quiet", "--trace", path],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        #expect(run.status == 0, "\(run.standardError)")
        let trace = try Trace.load(path: path)
        #expect(trace.header["script"] == "manifests/demo.flow")
        #expect(trace.sessions.count == 1)
        #expect(trace.sessions[0].inputs.first?.command == "start")
        #expect(trace.sessions[0].inputs[1].record["at"] == "manifests/demo.flow:16")
        #expect(trace.sessions[0].inputs.allSatisfy { $0.screen?["status"] == "ok" })

        let refused = try Subprocess.flowhost(["run", "manifests/demo.json", "--trace-redact", "user"])
        #expect(refused.status == 64)
        #expect(refused.errorLines.first == "flowhost: --trace-redact needs --trace FILE")

        let unwritable = try Subprocess.flowhost(
            ["run", "manifests/demo.json", "--trace", directory.path + "/missing/t.jsonl"])
        #expect(unwritable.status == 73)
        #expect(
            unwritable.errorLines.first?.hasSuffix("t.jsonl: cannot write the trace: No such file or directory") == true
        )
    }
}

// MARK: - Test Helpers

/// A bundled manifest's host and shell, recorded by a ``TraceRecorder`` into ``all``.
@MainActor
final class TracedRun {
    let host: FlowHost.Host
    let shell: HostShell
    let recorder: TraceRecorder

    convenience init(
        _ manifest: String, redacting keys: Set<String> = [], maxPayload: Int? = TraceRecorder.defaultMaxPayload,
        also sink: (@MainActor (TraceEvent) -> Void)? = nil
    ) throws {
        self.init(host: try FlowHost.Host.bundled(manifest), redacting: keys, maxPayload: maxPayload, also: sink)
    }

    /// `host` and a shell on it, recorded.
    init(
        host: FlowHost.Host, redacting keys: Set<String> = [], maxPayload: Int? = TraceRecorder.defaultMaxPayload,
        also sink: (@MainActor (TraceEvent) -> Void)? = nil
    ) {
        self.host = host
        shell = HostShell(host: host)
        let box = EventBox()
        recorder = TraceRecorder(redaction: TraceRedaction(keys: keys), maxPayload: maxPayload) { line in
            let event = try! line.event()
            box.events.append(event)
            sink?(event)
        }
        self.box = box
        recorder.header(for: host)
        recorder.beginSession(shell)
    }

    private let box: EventBox

    /// Every event recorded, the header first.
    var all: [TraceEvent] { box.events }
    /// The events after the header.
    var events: [TraceEvent] { Array(box.events.dropFirst()) }
    var header: TraceEvent? { box.events.first }

    func start() async { _ = await shell.startAndWait(tracing: recorder) }

    @discardableResult
    func perform(_ line: String) async -> HostShell.Reply { await shell.perform(line, tracing: recorder) }
}

@MainActor
private final class EventBox {
    var events: [TraceEvent] = []
}
