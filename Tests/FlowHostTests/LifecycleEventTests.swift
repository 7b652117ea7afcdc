import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import FlowTraces
@testable import PluginLoading

/// A lifecycle event says which services heard it (FlowKit 1.4): in the shell, in a trace, and in a replay
/// of a trace an older FlowKit wrote, which has no such lines.
@MainActor
struct LifecycleEventTests {
    @Test func theShellPrintsEachServiceThatHeardALifecycleEvent() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()

        let background = shell.execute("lifecycle background")
        let terminate = shell.execute("lifecycle terminate")

        #expect(
            background.lines == [
                "service auth.Session heard willEnterBackground",
                "service settings.Analytics heard willEnterBackground",
                "service auth.Session heard didEnterBackground",
                "service settings.Analytics heard didEnterBackground",
                "top: welcome",
            ])
        #expect(
            terminate.lines == [
                "service auth.Session heard willTerminate", "service settings.Analytics heard willTerminate",
                "top: welcome",
            ])
    }

    @Test func aQuietRunPrintsNothingForALifecycleEvent() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("lifecycle.flow", containing: "lifecycle background\nlifecycle terminate\n")

        let run = try Subprocess.flowhost([
            "run", Repository.path("manifests/demo.json"), "--script", script, "--quiet",
        ])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.isEmpty, "\(run.standardOutput)")
    }

    @Test func aTraceWritesALineForEachServiceThatHeardALifecycleEvent() async throws {
        let run = try TracedRun("manifests/demo.json")
        await run.start()
        await run.perform("lifecycle foreground")

        let heard = run.events.filter { $0.kind == .lifecycleDelivered }
        #expect(
            heard.map { $0["service"] } == ["auth.Session", "settings.Analytics", "auth.Session", "settings.Analytics"])
        #expect(
            heard.map { $0["event"] } == [
                "willEnterForeground", "willEnterForeground", "didBecomeActive", "didBecomeActive",
            ])
        #expect(heard.allSatisfy { $0.input == 1 })
        #expect(heard.first?.summary == "service auth.Session heard willEnterForeground")
    }

    @Test func aTraceOfAnOlderFlowKitWithoutLifecycleLinesReplaysIdentically() async throws {
        let lines = try await Self.recordLifecycle()
        let older = lines.filter { !$0.contains(#""kind":"lifecycleDelivered""#) }
        try #require(older.count == lines.count - 2, "the recorded run heard willTerminate twice")
        let header = older[0].replacing(#""flowKit":"\#(FlowKitVersion.current)""#, with: #""flowKit":"1.3""#)
        try #require(header != older[0])

        let asOlder = await Self.replay([header] + older.dropFirst())
        let asCurrent = await Self.replay(older)

        guard case .identical = asOlder else { throw TestFailure("expected identical, got \(asOlder)") }
        guard case .diverged(let divergence) = asCurrent else {
            throw TestFailure("expected a divergence, got \(asCurrent)")
        }
        #expect(divergence.command == "lifecycle terminate")
    }

    @Test func theKindsATraceCannotHaveAreThoseAddedAfterItsFlowKitAndNoneWhenItsVersionCannotBeRead() {
        #expect(TraceReplay.kindsUnknown(toFlowKit: "1.3") == [.lifecycleDelivered])
        #expect(TraceReplay.kindsUnknown(toFlowKit: "1.0") == [.lifecycleDelivered])
        #expect(TraceReplay.kindsUnknown(toFlowKit: "1.4").isEmpty)
        #expect(TraceReplay.kindsUnknown(toFlowKit: "1.10").isEmpty)
        #expect(TraceReplay.kindsUnknown(toFlowKit: "2.0").isEmpty)
        // Unreadable: taken as the current FlowKit's, which has every kind.
        #expect(TraceReplay.kindsUnknown(toFlowKit: nil).isEmpty)
        #expect(TraceReplay.kindsUnknown(toFlowKit: "1.4.1").isEmpty)
        #expect(TraceReplay.kindsUnknown(toFlowKit: "1.x.3").isEmpty)
    }

    @Test func aTraceWhoseFlowKitCannotBeReadComparesItsLifecycleLines() async throws {
        let lines = try await Self.recordLifecycle()
        let current = #","flowKit":"\#(FlowKitVersion.current)""#
        let odd = lines[0].replacing(current, with: #","flowKit":"1.4.1""#)
        let missing = lines[0].replacing(current, with: "")
        try #require(odd != lines[0] && missing != lines[0])

        for header in [odd, missing] {
            let withLines = await Self.replay([header] + lines.dropFirst())
            let withoutLines = await Self.replay(
                [header] + lines.dropFirst().filter { !$0.contains(#""kind":"lifecycleDelivered""#) })

            guard case .identical = withLines else { throw TestFailure("expected identical, got \(withLines)") }
            guard case .diverged = withoutLines else { throw TestFailure("expected a divergence, got \(withoutLines)") }
        }
    }

    @Test func aReplayOfAnOlderFlowKitsTraceCountsTheEventsItCompared() async throws {
        let lines = try await Self.recordLifecycle()
        let older = lines.filter { !$0.contains(#""kind":"lifecycleDelivered""#) }
        let header = older[0].replacing(#""flowKit":"\#(FlowKitVersion.current)""#, with: #""flowKit":"1.3""#)

        let asCurrent = await Self.replay(lines)
        let asOlder = await Self.replay([header] + older.dropFirst())

        guard case .identical(let all) = asCurrent, case .identical(let compared) = asOlder else {
            throw TestFailure("expected both identical, got \(asCurrent) and \(asOlder)")
        }
        #expect(compared.events == all.events - 2)
    }

    /// The lines of a trace of the demo's start and `lifecycle terminate`.
    private static func recordLifecycle() async throws -> [String] {
        let lines = LineBox()
        let run = try TracedRun("manifests/demo.json") { lines.lines.append($0.line) }
        await run.start()
        await run.perform("lifecycle terminate")
        run.recorder.finish()
        return lines.lines
    }

    private static func replay(_ lines: [String]) async -> ReplayResult {
        do {
            return await TraceReplay(
                trace: try Trace.parse(lines.joined(separator: "\n"), file: "lifecycle.jsonl"),
                manifest: try Manifest.load(path: Repository.path("manifests/demo.json")),
                searchPath: PluginSearchPath([BuildProducts.directory])
            ).run()
        } catch {
            Issue.record("\(error)")
            return .identical(ReplaySummary(sessions: 0, inputs: 0, events: 0, rebuilt: []))
        }
    }
}

@MainActor
private final class LineBox {
    var lines: [String] = []
}
