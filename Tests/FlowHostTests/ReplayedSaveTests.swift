import FlowKit
import Foundation
import Glibc
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowTraces
@testable import PluginLoading

/// A recorded `save FILE` in a replay: the snapshot is taken again, and nothing is written.
@MainActor
struct ReplayedSaveTests {
    /// A trace is data: replaying one someone else wrote must not overwrite the files it names.
    @Test func aReplayedSaveTakesItsSnapshotAndWritesNothing() async throws {
        let lab = try SwapLab()
        let snapshot = lab.directory.path + "/notes.txt"
        let trace = try await ReplayTests.record(lab, ["send greet", "save " + snapshot])
        _ = try lab.directory.file("notes.txt", containing: "mine")

        let result = try await replay(trace, in: lab)

        guard case .identical(let summary) = result else { throw TestFailure("expected identical, got \(result)") }
        #expect(summary.inputs == 3)
        #expect(try readText(snapshot) == "mine")
    }

    /// The replay writes nothing, so a `save` whose writing failed when recorded (its directory gone) is taken
    /// in the replay: not a divergence, and the steps after it are replayed.
    @Test func aSaveThatFailedWhenRecordedIsNotADivergence() async throws {
        let lab = try SwapLab()
        let save = "save " + lab.directory.path + "/gone/session.json"
        let trace = try await ReplayTests.record(lab, ["send greet", save, "send greet"], failing: [save])
        #expect(trace.sessions[0].inputs[2].screen?["error"]?.string?.contains("cannot write") == true)

        let result = try await replay(trace, in: lab)

        guard case .identical(let summary) = result else { throw TestFailure("expected identical, got \(result)") }
        #expect(summary.inputs == 4)
    }

    /// Only a save the replay took is compared without its status: one refused in the replay (here, a trace
    /// whose `save FILE` was edited to a bare `save`) where the recorded run saved is a divergence.
    @Test func aSaveRefusedOnlyInTheReplayIsADivergence() async throws {
        let lab = try SwapLab()
        let save = "save " + lab.directory.path + "/session.json"
        let lines = try await ReplayTests.recordLines(lab, ["send greet", save])
        let edited = lines.map { $0.replacingOccurrences(of: #""command":"\#(save)""#, with: #""command":"save""#) }
        #expect(edited != lines)
        let trace = try Trace.parse(edited.joined(separator: "\n"), file: "edited.jsonl")

        let result = try await replay(trace, in: lab)

        guard case .diverged(let divergence) = result else { throw TestFailure("expected a divergence, got \(result)") }
        #expect(divergence.step == 2)
        #expect(divergence.got.contains("usage: save FILE"))
    }

    /// `trace` replayed against the lab's manifest and plugins.
    private func replay(_ trace: Trace, in lab: SwapLab) async throws -> ReplayResult {
        await TraceReplay(
            trace: trace, manifest: try Manifest.load(path: lab.manifestPath),
            searchPath: PluginSearchPath([lab.directory.path])
        ).run()
    }
}
