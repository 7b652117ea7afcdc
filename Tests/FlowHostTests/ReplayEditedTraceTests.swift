import FlowKit
import Testing

/// Replaying traces that lost lines or were joined or edited: what the replay says of each.
@MainActor
struct ReplayEditedTraceTests {
    /// A finished step whose screen line the trace lost (edited, or lines dropped) is a divergence at that
    /// step: the replay said "every screen as recorded" of a screen it had nothing to compare with.
    @Test func aStepWhoseScreenLineIsLostDivergesThere() throws {
        let (directory, path, environment) = try ReplayTests.recordedDemo()
        var lines = try readText(path).split(separator: "\n").map(String.init)
        let lost = try #require(lines.firstIndex { $0.contains(#""kind":"screen""#) && $0.contains(#""input":5,"#) })
        lines.remove(at: lost)
        let edited = try directory.file("edited.jsonl", containing: lines.joined(separator: "\n") + "\n")

        let replay = try Subprocess.flowhost(["replay", edited], environment: environment)

        #expect(replay.status == 1, "\(replay.standardOutput)")
        #expect(replay.outputLines.first?.contains(" diverged at step 5 of 37 ") == true, "\(replay.outputLines)")
        #expect(replay.outputLines.contains("  expected: the screen: no screen line; the trace lost it"))
        #expect(replay.outputLines.contains { $0.hasPrefix("  got:      the screen: stack: welcome > ") })
        #expect(!replay.outputLines.contains("  as recorded:"), "nothing recorded to show")
    }

    /// A long command (a script's line may hold 16 MiB) is named by its first 64 characters and its length,
    /// and a long line of the report is cut too: a trace's 50 MB request name was printed three times over.
    @Test func aLongCommandIsNamedByItsStartAndLength() throws {
        let (directory, path, environment) = try ReplayTests.recordedDemo()
        let long = "send " + String(repeating: "x", count: 10_000)
        var lines = try readText(path).split(separator: "\n").map(String.init)
        let step = try #require(lines.firstIndex { $0.contains(#""kind":"input""#) && $0.contains(#""input":5,"#) })
        lines[step] = lines[step].replacing(#/"command":"[^"]*"/#, with: #""command":"\#(long)""#)
        let edited = try directory.file("edited.jsonl", containing: lines.joined(separator: "\n") + "\n")

        let replay = try Subprocess.flowhost(["replay", edited], environment: environment)

        #expect(replay.status == 1, "\(replay.standardOutput)")
        let named = "\(long.prefix(64))... (\(long.count) characters)"
        #expect(replay.outputLines.first?.hasSuffix(": " + named) == true, "\(replay.outputLines.first ?? "")")
        #expect(replay.outputLines.allSatisfy { $0.count < 4200 }, "every line cut")
        #expect(replay.standardOutput.utf8.count < 20_000)
    }

    /// Traces joined whole (`cat a.jsonl b.jsonl`), the first cut before its last screen line (Ctrl-C as the
    /// screen was written): the cut step is its recording's last, and nothing was lost from the trace.
    @Test func aJoinedTraceWhoseFirstPartEndsWithoutItsScreenReplaysBothParts() throws {
        let (directory, path, environment) = try ReplayTests.recordedDemo()
        let (kept, second, _) = try ReplayTests.recordedDemo()
        let lines = try readText(path).split(separator: "\n").map(String.init)
        let lastScreen = try #require(lines.lastIndex { $0.contains(#""kind":"screen""#) })
        let joined = try directory.file(
            "joined.jsonl", containing: lines[..<lastScreen].joined(separator: "\n") + "\n" + readText(second))
        withExtendedLifetime(kept) {}

        let replay = try Subprocess.flowhost(["replay", joined], environment: environment)

        #expect(replay.status == 0, "\(replay.standardOutput)")
        #expect(replay.outputLines.first?.hasPrefix("replay identical: 2 sessions ") == true, "\(replay.outputLines)")
    }
}
