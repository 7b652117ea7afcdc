import Foundation
import Testing

/// A snapshot restored where two of its steps no longer route, as a person meets it: the report lists both,
/// the error that stops the script names both (with `--quiet`, which prints no report, it is all there is),
/// and under the report on one stream it refers to it rather than repeating the first.
struct RestoreProblemsOutputTests {
    private let directory: TemporaryDirectory
    private let snapshot: String
    /// demo.json without the routes of the item's detail and the About screen, which the snapshot shows.
    private let manifest: String
    private let problems = [
        #"step 2 (catalog.detail {"id":2} from itemList in the root coordinator): no route handles it any more"#,
        "step 3 (settings.about from settings in the root coordinator): no route handles it any more",
    ]

    init() throws {
        directory = try TemporaryDirectory()
        snapshot = directory.path + "/snap.json"
        let saved = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--quiet"],
            input: "send auth.signIn\nact submit\nsend catalog.detail {\"id\": 2}\ntab 1\nsend settings.about\n"
                + "save \(snapshot)\n")
        try #require(saved.status == 0, "\(saved.standardError)")
        let demo = try readText(Repository.path("manifests/demo.json"))
        let routes = [
            #"    { "request": "catalog.detail", "plugin": "catalog", "manager": "ItemDetail" },"#,
            #"    { "request": "settings.about", "plugin": "settings", "manager": "About" }"#,
        ]
        var less = demo.replacingOccurrences(of: routes[0] + "\n", with: "")
            .replacingOccurrences(of: ",\n" + routes[1], with: "")
        // The link to an item would no longer start with a routed request.
        less = less.replacingOccurrences(
            of: ",\n" + #"    { "pattern": "demo://items/{id:int}", "#
                + #""requests": [{ "request": "catalog.detail", "payload": { "id": "{id}" } }] }"#,
            with: "")
        try #require(demo.count - less.count > 250, "the routes and the link were not all found in demo.json")
        manifest = try directory.file("less.json", containing: less)
    }

    /// `--quiet` prints no report: the error is all there is, on one stream with the output or not.
    @Test func quietRestoreNamesEveryProblemInItsError() throws {
        let apart = try Subprocess.flowhost(["run", manifest, "--restore", snapshot, "--quiet"])
        let together = try Subprocess.flowhost(
            ["run", manifest, "--restore", snapshot, "--quiet"], errorsWithOutput: true)

        let error =
            "\(snapshot): not restored as saved: " + problems.joined(separator: "; ")
            + "; the screen differs: tab 'Items' itemList, saved itemList > itemDetail"
        #expect(apart.status == 1)
        #expect(apart.errorLines == [error])
        #expect(apart.standardOutput.isEmpty, "\(apart.standardOutput)")
        #expect(together.status == 1)
        #expect(together.outputLines == [error, ""])
    }

    @Test func underTheReportOnOneStreamTheErrorRefersToIt() throws {
        let run = try Subprocess.flowhost(
            ["run", manifest], input: "restore \(snapshot)\n", errorsWithOutput: true)

        #expect(run.status == 1)
        let report = run.outputLines.drop { !$0.hasPrefix("  restored 1 of 3 steps;") }
        #expect(Array(report.dropFirst().prefix(2)) == problems.map { "    " + $0 }, "\(run.outputLines)")
        #expect(
            run.outputLines.contains("<stdin>:1: error: \(snapshot): not restored as saved (2 problems, said above)"))
        // The report says why each step did not come back; the replayed requests' lines do not say it again.
        #expect(!run.standardOutput.contains("unhandled"), "\(run.standardOutput)")
    }

    /// At a prompt the report is on the screen, above the error, which refers to it; with `--quiet`, which
    /// prints no report, the error says every problem.
    @Test(arguments: [false, true])
    func atAPromptTheErrorRefersToTheReportUnlessQuiet(quiet: Bool) throws {
        let shell = try ChildProcess.flowhost(
            ["run", manifest] + (quiet ? ["--quiet"] : []), environment: directory.environment())
        try shell.waitFor("flowhost> ")
        try shell.send("restore \(snapshot)\r")
        try shell.waitFor("not restored as saved")
        try shell.waitFor("flowhost> ")

        let rows = TerminalScreen(shell.transcript, width: 10_000).rows
        let command = try #require(rows.lastIndex(of: "flowhost> restore \(snapshot)"), "\(rows)")
        let error = try #require(rows[command...].first { $0.hasPrefix("error: ") }, "\(rows)")
        let whole =
            "error: \(snapshot): not restored as saved: " + problems.joined(separator: "; ")
            + "; the screen differs: tab 'Items' itemList, saved itemList > itemDetail"
        #expect(error == (quiet ? whole : "error: \(snapshot): not restored as saved (2 problems, said above)"))
        #expect(rows[command...].contains("    " + problems[1]) == !quiet, "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }
}
