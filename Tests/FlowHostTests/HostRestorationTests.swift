import FlowKit
import Foundation
import Testing

@testable import FlowHost
@testable import FlowShell

/// `save FILE`, `restore FILE` and `run --restore FILE` on the demo app with the real plugins.
@MainActor
struct HostRestorationTests {
    /// A shell on `manifest`, started at its start requests.
    private func started(_ manifest: String = "manifests/demo.json") throws -> HostShell {
        let shell = HostShell(host: try Host.bundled(manifest))
        try #require(shell.start().status == .ok)
        return shell
    }

    /// Runs `lines` and requires each to succeed.
    private func run(_ shell: HostShell, _ lines: [String]) throws {
        for line in lines {
            let reply = shell.execute(line)
            try #require(reply.status == .ok, "\(line) -> \(reply.lines)")
        }
    }

    /// The demo walked as the issue asks: signed in as grace, an item added and opened, the Settings tab
    /// selected with About pushed, and the create-item modal open over it.
    private func walkedDemo() throws -> HostShell {
        let shell = try started()
        try run(
            shell,
            [
                "act signIn", #"act submit {"user": "grace"}"#, "act create", #"act save {"title": "Tent"}"#,
                #"act open {"id": 4}"#, "tab 1", "act about", #"deeplink [{"request": "catalog.create"}]"#,
            ])
        return shell
    }

    @Test func savedDemoRestoresIntoANewHostWithTheSameScreenUserAndItems() async throws {
        let shell = try walkedDemo()
        let directory = try TemporaryDirectory()
        let file = directory.path + "/session.json"

        let saved = shell.execute("save \(file)")
        let next = HostShell(host: try Host.bundled("manifests/demo.json"))
        let restored = await next.start(restoring: try HostSnapshot.load(path: file), from: file)

        #expect(saved.lines.first == "saved \(file): 4 steps, 3 service states, 0 experiment assignments")
        #expect(restored.status == .ok, "\(restored.lines)")
        #expect(restored.lines.contains("restored 4 of 4 steps; the screen is as saved (from \(file))"))
        #expect(next.host.coordinator.router.state == shell.host.coordinator.router.state)
        #expect(next.execute("stack").lines == shell.execute("stack").lines)
        #expect(next.execute("stack").lines.contains("tab 1* 'Settings': settings > about"))
        // What is not on screen came back too: the signed-in user and the added item.
        try run(next, ["dismiss", "expect content version \"1.0.0\"", "back", #"expect content user "grace""#])
        try run(next, ["tab 0", #"expect content title "Tent""#, "back", #"expect content items.3.title "Tent""#])
    }

    @Test func restoreScriptRunsToTheEndWithEveryExpectationMet() async throws {
        let shell = try started()
        let directory = try TemporaryDirectory()
        let script = try readText(Repository.path("manifests/restore.flow")).replacingOccurrences(
            of: ".build/restore.flow.json", with: directory.path + "/restore.flow.json")
        var stacks: [[String]] = []

        for (number, line) in script.split(separator: "\n").enumerated() {
            let reply = await shell.perform(String(line))
            if line == "stack" { stacks.append(reply.lines) }
            #expect(
                reply.status == .ok || reply.status == .quit, "restore.flow:\(number + 1): \(line) -> \(reply.lines)")
        }
        #expect(stacks.count == 2)
        #expect(stacks.first == stacks.last, "restoring shows the stack saved")
    }

    @Test func restoreInTheRunningHostComesBackFromSignedOut() async throws {
        let shell = try walkedDemo()
        let directory = try TemporaryDirectory()
        let file = directory.path + "/session.json"
        try run(shell, ["save \(file)"])
        let stack = shell.execute("stack").lines
        try run(shell, ["dismiss", "back", "act signOut", "expect stack welcome"])

        let reply = await shell.perform("restore \(file)")

        #expect(reply.status == .ok, "\(reply.lines)")
        #expect(shell.execute("expect outcome handled by catalog.CreateItem").status == .ok, "the last step's")
        #expect(shell.execute("stack").lines == stack)
        #expect(
            reply.lines.contains("services with their saved state: auth.Session, catalog.Store, settings.Analytics"))
        #expect(reply.lines.last == "top: createItemForm")
        try run(shell, ["dismiss", "back", #"expect content user "grace""#])
    }

    @Test func aSignInFlowTheSettingsActionOpenedComesBackAsThatFlow() async throws {
        let shell = try started()
        let directory = try TemporaryDirectory()
        let file = directory.path + "/session.json"
        try run(shell, ["act signIn", #"act submit {"user": "grace"}"#, "tab 1", "act switchUser", "save \(file)"])
        try run(shell, ["back", "expect stack settings"])

        let reply = await shell.perform("restore \(file)")
        let flows = shell.host.coordinator.children.map { ($0.name, $0.childCoordinators.map(\.name)) }
        let submitted = shell.execute(#"act submit {"user": "ada"}"#)

        #expect(reply.lines.contains("restored 2 of 2 steps; the screen is as saved (from \(file))"), "\(reply.lines)")
        #expect(flows.map(\.0) == ["items", "settings"] && flows.map(\.1) == [[], ["switchUser"]])
        #expect(submitted.lines.contains("child switchUser finished: completed"), "\(submitted.lines)")
        try run(shell, ["expect stack settings", #"expect content user "ada""#])
    }

    @Test func restoreStepThatNoLongerRoutesIsReportedAndTheRestIsRestored() async throws {
        let shell = try walkedDemo()
        let snapshot = shell.host.snapshot()
        // The same app, but the About screen is no longer routed.
        let demo = try readText(Repository.path("manifests/demo.json"))
        let about = #"    { "request": "settings.about", "plugin": "settings", "manager": "About" }"#
        let withoutAbout = demo.replacingOccurrences(of: ",\n" + about, with: "").replacingOccurrences(
            of: #""name": "demo""#, with: #""name": "demo-without-about""#)
        try #require(withoutAbout != demo)
        let host = try Host.parsing(withoutAbout)
        let next = HostShell(host: host)

        let reply = await next.start(restoring: snapshot, from: "session.json")

        #expect(
            reply.status
                == .error(
                    "session.json: not restored as saved: step 3 (settings.about from settings in settings): no route handles it any more; the screen differs: tab 'Settings' settings, saved settings > about"
                ))
        #expect(
            reply.lines.contains(
                "restored 3 of 4 steps; the screen differs: tab 'Settings' settings, saved settings > about (from session.json)"
            ))
        #expect(
            reply.lines.contains("  step 3 (settings.about from settings in settings): no route handles it any more"))
        #expect(
            reply.lines.contains(
                "note: saved with manifest 'demo'; restored through the routes of 'demo-without-about'"))
        var expected = shell.host.coordinator.router.state
        expected.tabs[1].stack = ["settings"]
        #expect(host.coordinator.router.state == expected, "everything else is back, the modal included")
        #expect(host.snapshot().flow.steps.map(\.request.name) == ["home.show", "catalog.detail", "catalog.create"])
    }

    @Test func experimentAssignmentsComeBackWithoutNewExposures() async throws {
        let shell = try started("manifests/experiment.json")
        try run(shell, ["act signIn", #"act submit {"user": "ada"}"#, "act create"])
        let snapshot = shell.host.snapshot()
        #expect(snapshot.experiments == ["create-flow": ["ada": "classic"]])

        let host = try Host.bundled("manifests/experiment.json")
        var exposures: [Exposure] = []
        host.onEvent = { if case .exposure(let exposure) = $0 { exposures.append(exposure) } }
        let restoration = try await host.start(restoring: try HostSnapshot(json: snapshot.json))

        #expect(restoration.report.isComplete, "\(restoration.report)")
        #expect(host.experiments.assignments == ["create-flow": ["ada": "classic"]])
        #expect(host.coordinator.router.state.modals == [["createItemForm"]])
        #expect(exposures.isEmpty, "ada was exposed in the run that saved her")
        // ...and counts in the stats of the host that goes on with that run (`stats` after a supervised
        // restart showed no exposures at all).
        #expect(host.stats.exposures == ["create-flow": ["classic": 1]])
    }

    @Test func snapshotFileIsWrittenAtomicallyAndReadBack() throws {
        let shell = try walkedDemo()
        let directory = try TemporaryDirectory()
        let file = try directory.file("session.json", containing: "an older save")

        try shell.host.snapshot().write(to: file)

        #expect(try HostSnapshot.load(path: file) == shell.host.snapshot())
        #expect(try directoryEntries(directory.path) == ["session.json"], "no temporary file is left behind")
        #expect(
            shell.execute("save \(directory.path)/missing/session.json").status
                == .error(
                    "\(directory.path)/missing/session.json: cannot write snapshot file: cannot write in its directory: No such file or directory"
                ))
    }

    @Test func unreadableSnapshotFilesAreOneLineErrorsNamingTheFileAndTheCause() async throws {
        let directory = try TemporaryDirectory()
        let newer = try directory.file(
            "newer.json",
            containing:
                #"{"format": "flowhost-snapshot", "version": 2, "flow": {"version": 1, "steps": [], "presentation": {}}}"#
        )
        let newerFlow = try directory.file(
            "newer-flow.json", containing: #"{"format": "flowhost-snapshot", "version": 1, "flow": {"version": 7}}"#)
        let stepTab = try directory.file("step-tab.json", containing: twoTabsSnapshot(stepTab: 2, selectedTab: 1))
        let selectedTab = try directory.file(
            "selected-tab.json", containing: twoTabsSnapshot(stepTab: 1, selectedTab: 7))
        let cases: [(String, SnapshotFileError.Kind, String)] = [
            (directory.path + "/none.json", .notFound, "snapshot file not found"),
            (directory.path, .unreadable, "snapshot file is a directory, not a regular file"),
            (
                try directory.file("text.json", containing: "steps: 1"), .invalid,
                "not a snapshot: not valid JSON: line 1, column 1: unexpected character 's'"
            ),
            (
                try directory.file("manifest.json", containing: "{}"), .invalid,
                #"not a flowhost snapshot: it lacks "format": "flowhost-snapshot""#
            ),
            (
                newer, .invalid,
                "snapshot version 2 is newer than this flowhost reads (1); restore it with the flowhost that saved it"
            ),
            (
                newerFlow, .invalid,
                "snapshot version 7 is newer than this FlowKit reads (3); restore it with the FlowKit that saved it"
            ),
            (stepTab, .invalid, "invalid snapshot: at steps.1: 'tab' is 2, but there are 2 tabs"),
            (selectedTab, .invalid, "invalid snapshot: at presentation: 'selectedTab' is 7, but there are 2 tabs"),
        ]
        for (file, kind, message) in cases {
            #expect(throws: SnapshotFileError(file: file, kind: kind, message: message)) {
                try HostSnapshot.load(path: file)
            }
        }
        let shell = try started()
        #expect(await shell.perform("restore \(newer)").status == .error("\(newer): \(cases[4].2)"))
        #expect(await shell.perform("restore \(selectedTab)").status == .error("\(selectedTab): \(cases[7].2)"))
        #expect(await shell.perform("restore").status == .error("usage: restore FILE"))
        #expect(await shell.perform("restore").lines.isEmpty, "a refused restore's error alone")
        #expect(shell.execute("expect stack welcome").status == .ok, "a refused restore changes nothing")
    }
}

/// `flowhost run --restore FILE`.
struct RunRestoreTests {
    private let manifest = Repository.path("manifests/demo.json")

    @Test func restoreAtStartReplacesTheStartRequestsAndShowsTheSavedStack() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/session.json"
        let walk = try directory.file(
            "walk.flow",
            containing:
                "act signIn\nact submit {\"user\": \"ada\"}\nact open {\"id\": 2}\ntab 1\nact about\nsave \(file)\nstack\n"
        )
        let saved = try Subprocess.flowhost(["run", manifest, "--script", walk, "--quiet"])
        try #require(saved.status == 0, "\(saved.standardError)")
        let check = try directory.file("check.flow", containing: "stack\nexpect content version \"1.0.0\"\n")

        let run = try Subprocess.flowhost(["run", manifest, "--restore", file, "--script", check])
        let quiet = try Subprocess.flowhost(["run", manifest, "--restore", file, "--script", check, "--quiet"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardOutput.contains("launch from app"), "the start request is not sent")
        #expect(run.outputLines.contains("  restored 3 of 3 steps; the screen is as saved (from \(file))"))
        #expect(quiet.standardOutput == saved.standardOutput, "the same stack output")
    }

    @Test func missingSnapshotExits66AndAnInvalidOne65() throws {
        let directory = try TemporaryDirectory()
        let invalid = try directory.file("invalid.json", containing: "{\"format\": \"flowhost-snapshot\"}")

        let missing = try Subprocess.flowhost(["run", manifest, "--restore", directory.path + "/none.json"])
        let bad = try Subprocess.flowhost(["run", manifest, "--restore", invalid])

        #expect(missing.status == 66)
        #expect(missing.errorLines == ["flowhost: \(directory.path)/none.json: snapshot file not found"])
        #expect(bad.status == 65)
        #expect(bad.errorLines == ["\(invalid): invalid snapshot: 'version' must be a whole number"])
    }

    @Test func aTabTheSnapshotDoesNotHaveExits65NamingTheFileAndTheTab() throws {
        let directory = try TemporaryDirectory()
        let valid = try directory.file(
            "valid.json", containing: twoTabsSnapshot(stepTab: 1, selectedTab: 1))
        let stepTab = try directory.file(
            "step-tab.json", containing: twoTabsSnapshot(stepTab: 4, selectedTab: 1))
        let selectedTab = try directory.file(
            "selected-tab.json", containing: twoTabsSnapshot(stepTab: 1, selectedTab: 2))
        let quit = try directory.file("quit.flow", containing: "quit\n")

        let restored = try Subprocess.flowhost(["run", manifest, "--restore", valid, "--script", quit, "--quiet"])
        let badStep = try Subprocess.flowhost(["run", manifest, "--restore", stepTab, "--script", quit])
        let badSelected = try Subprocess.flowhost(["run", manifest, "--restore", selectedTab, "--script", quit])

        #expect(restored.status == 0, "\(restored.standardError)")
        #expect(badStep.status == 65)
        #expect(badStep.errorLines == ["\(stepTab): invalid snapshot: at steps.1: 'tab' is 4, but there are 2 tabs"])
        #expect(badSelected.status == 65)
        #expect(
            badSelected.errorLines == [
                "\(selectedTab): invalid snapshot: at presentation: 'selectedTab' is 2, but there are 2 tabs"
            ])
    }
}

private func directoryEntries(_ path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}

/// A snapshot of the demo's home, ada signed in, with its two tabs, About pushed in the second by a step
/// selecting `stepTab` first, and `selectedTab` selected.
private func twoTabsSnapshot(stepTab: Int, selectedTab: Int) -> String {
    """
    {"format": "flowhost-snapshot", "version": 1, "flow": {"version": 3,
     "steps": [{"request": "home.show", "from": "signIn"},
               {"request": "settings.about", "from": "settings", "coordinator": ["settings"], "tab": \(stepTab)}],
     "presentation": {
       "stack": [{"module": "home", "step": 0}],
       "tabs": [
         {"title": "Items", "stack": [{"module": "itemList", "coordinator": ["items"], "step": 0}]},
         {"title": "Settings", "stack": [{"module": "settings", "coordinator": ["settings"], "step": 0},
                                         {"module": "about", "coordinator": ["settings"], "step": 1}]}],
       "selectedTab": \(selectedTab)},
     "services": {"auth.Session": {"user": {"id": "ada", "name": "ada"}, "locked": false}}}}
    """
}
