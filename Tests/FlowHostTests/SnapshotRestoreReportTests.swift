import FlowKit
import HostSupport
import Testing

@testable import FlowTraces

/// `experiments report` of a run whose script restores a snapshot (`restore FILE`): the restore replays the
/// requests that built the snapshot's screens, so a goal among them was reached when they were built, not by
/// the subject exposed in the run; the restore is a step of the person's all the same.
struct SnapshotRestoreReportTests {
    @Test func aGoalReplayedByARestoreCountsForNobodyAndTheRestoreIsAStep() throws {
        let directory = try TemporaryDirectory()
        let environment: [String: String?] = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let snapshot = directory.path + "/at-the-goal.json"
        // ann adds an item, opens it (the goal, catalog.detail), and saves the screens there.
        let saved = try Subprocess.flowhost(
            [
                "run", "manifests/experiment.json", "--quiet", "--script",
                try directory.file(
                    "save.flow",
                    containing: Self.signIn("ann")
                        + "act create\nact save {\"title\": \"Tent\"}\nsend catalog.detail {\"id\": 4}\nsave \(snapshot)\n"
                ),
            ], environment: environment)
        #expect(saved.status == 0, "\(saved.standardError)")
        // bob is exposed, restores ann's screens at the goal, and stops there; carol is exposed, restores them,
        // then opens the item herself: three steps, the restore one of them.
        var traces: [String] = []
        for (user, after) in [("bob", ""), ("carol", "send catalog.detail {\"id\": 4}\n")] {
            let script = Self.signIn(user) + "act create\nrestore \(snapshot)\n" + after
            traces.append(directory.path + "/\(user).jsonl")
            let run = try Subprocess.flowhost(
                [
                    "run", "manifests/experiment.json", "--quiet", "--trace", traces[traces.count - 1], "--script",
                    try directory.file("\(user).flow", containing: "# goal: catalog.detail\n" + script),
                ], environment: environment)
            #expect(run.status == 0, "\(run.standardError)")
        }

        let report = try Subprocess.flowhost(["experiments", "report", "--json"] + traces)

        #expect(report.status == 0, "\(report.standardError)")
        let json = try JSONValue(parsing: report.standardOutput)
        let variants = try #require(json["experiments"]?[0]?["variants"]?.array)
        #expect(variants.compactMap { $0["exposed"]?.int }.reduce(0, +) == 2)
        let reached = variants.filter { $0["reached"] != 0 }
        #expect(reached.map { $0["reached"] } == [1])
        #expect(reached.map { $0["medianSteps"] } == [3])
    }

    /// The lines that sign `user` in on the experiment demo's welcome screen, to the item list.
    private static func signIn(_ user: String) -> String {
        "act signIn\nact submit {\"user\": \"\(user)\"}\n"
    }
}
