import Testing

@testable import FlowHost
@testable import FlowShell

/// A request whose manager fails, at a terminal and elsewhere: said once on a person's screen, whole on each
/// stream a program reads.
@MainActor
struct ManagerFailureTerminalTests {
    /// At the demo's prompt: signs in, then sends `catalog.detail` for an item there is none of, whose manager
    /// throws, and waits for the next prompt.
    static func signInAndAskForAMissingItem(_ shell: ChildProcess) throws {
        try shell.waitFor("flowhost> ")
        try shell.send("act signIn\r")
        try shell.waitFor("top: signIn")
        try shell.waitFor("flowhost> ")
        try shell.send("act submit\r")
        try shell.waitFor("top: itemList")
        try shell.waitFor("flowhost> ")
        try shell.send(#"send catalog.detail {"id": 999}"# + "\r")
        try shell.waitFor("no item with id 999")
        try shell.waitFor("flowhost> ")
    }

    /// At a prompt the request's line and the command's error land on one screen: the error alone says the
    /// failure, with the request, the manager, its library and the cause. It once printed the request's line
    /// (`catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id
    /// 999`), then `top: itemList`, then the error again without the manager.
    @Test func aRequestWhoseManagerThrowsIsSaidOnceOnTheScreen() throws {
        let state = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: state.environment())
        try Self.signInAndAskForAMissingItem(shell)

        // Wide enough that no row wraps: the rows are the lines printed.
        let rows = TerminalScreen(shell.transcript, width: 10_000).rows
        let command = try #require(rows.lastIndex(of: #"flowhost> send catalog.detail {"id": 999}"#))
        #expect(
            Array(rows[command...]) == [
                #"flowhost> send catalog.detail {"id": 999}"#,
                "error: catalog.detail failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 999",
                "flowhost>",
            ])
        #expect(rows.count { $0.contains("no item with id 999") } == 1, "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// A deep link whose step's manager throws is said once too: the step's line was printed, then the error
    /// again without the request or the manager (`deep link stopped at step 1 of 1: failed: no item with id
    /// 999`), found by a trial.
    @Test func aDeepLinkStepWhoseManagerThrowsIsSaidOnceOnTheScreen() throws {
        let state = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")], environment: state.environment())
        try Self.signInAndAskForAMissingItem(shell)
        try shell.send("open demo://items/999\r")
        try shell.waitFor("deep link stopped")
        try shell.waitFor("flowhost> ")

        let rows = TerminalScreen(shell.transcript, width: 10_000).rows
        let command = try #require(rows.lastIndex(of: "flowhost> open demo://items/999"))
        #expect(
            Array(rows[command...]) == [
                "flowhost> open demo://items/999",
                "error: deep link stopped at step 1 of 1: catalog.detail failed in catalog.ItemDetail "
                    + "(libCatalogPlugin.so): no item with id 999",
                "flowhost>",
            ])
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// Under a supervisor whose standard error goes to a file, the host's errors are not on the screen: the
    /// request's line stays there. The host took its supervisor for a sign that both streams shared the screen,
    /// and the failure was said only in the file.
    @Test func aSupervisedRunWithErrorsInAFileKeepsTheLineOnTheScreen() throws {
        let state = try TemporaryDirectory()
        let errors = state.path + "/errors.log"
        let shell = try ChildProcess(
            executable: "/bin/sh",
            arguments: [
                "-c", #"exec "$0" run "$1" --supervise 2>"$2""#, try BuildProducts.path(of: "flowhost"),
                Repository.path("manifests/demo.json"), errors,
            ], connection: .terminal(controlling: true), environment: state.environment())
        try Self.signInAndAskForAMissingItem(shell)

        let rows = TerminalScreen(shell.transcript, width: 10_000).rows
        #expect(
            rows.contains(
                #"  catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 999"#
            ), "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
        #expect(try readText(errors).contains("error: catalog.detail failed: no item with id 999"))
    }

    /// Piped, standard output and standard error are each read alone (a log, a script's errors): the request's
    /// line stays in the one and the error keeps the text scripts match in the other.
    @Test func throughPipesTheLineAndTheErrorEachSayItWhole() throws {
        let state = try TemporaryDirectory()
        let script = try state.file(
            "detail.flow", containing: "act signIn\nact submit\n" + #"send catalog.detail {"id": 999}"# + "\n")

        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", script])

        #expect(run.status == 1)
        let sent = try #require(run.outputLines.firstIndex(of: #"> send catalog.detail {"id": 999}"#))
        #expect(
            run.outputLines[sent...].prefix(3) == [
                #"> send catalog.detail {"id": 999}"#,
                "  catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 999",
                "  top: itemList",
            ])
        #expect(run.errorLines == ["\(script):3: error: catalog.detail failed: no item with id 999"])
    }

    /// A manager that failed having done something keeps its line on the screen, for the lines of what it did
    /// under it, but without the cause, which the error gives.
    @Test func aFailedRequestsLineWithLinesUnderItLeavesTheCauseToTheError() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1,
             "plugins": {"auth": "libAuthPlugin.so", "catalog": "libCatalogPlugin.so", "settings": "libSettingsPlugin.so"},
             "routes": [{"request": "home.show", "plugin": "catalog", "manager": "Home"},
                        {"request": "catalog.list", "plugin": "catalog", "manager": "ItemList"},
                        {"request": "settings.show", "plugin": "settings", "manager": "Setings"}],
             "services": [{"plugin": "catalog", "service": "Store"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()

        let reply = shell.execute("send home.show")

        // The settings tab's manager is misspelt: Home, having presented its screen, fails with the tab's request.
        let cause =
            "plugin 'settings' exports no manager 'Setings' (did you mean 'Settings'?); it exports: About, Settings"
        guard case .error(let error) = reply.status else { throw TestFailure("no error: \(reply.status)") }
        #expect(error.hasPrefix("home.show failed: ") && error.hasSuffix(cause), "\(error)")
        let line = "home.show from app: failed in catalog.Home (libCatalogPlugin.so)"
        #expect(reply.lines.first?.hasPrefix(line + ": ") == true, "\(reply.lines)")
        let screen = try #require(reply.onScreen)
        #expect(screen.lines.first == line)
        #expect(screen.lines.dropFirst() == reply.lines.dropFirst())
        #expect(screen.lines.count { $0.contains("presented home") } == 1, "\(screen.lines)")
        #expect(screen.error == error)
    }

    /// Nothing to say once more where no manager took the request: a route to a manager its plugin does not
    /// export fails before any manager runs, and its line is left out everywhere already, so the error alone is
    /// the reply, on a screen as elsewhere.
    @Test func aRequestNoManagerTookHasNoScreenForm() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1,
             "plugins": {"auth": "libAuthPlugin.so", "settings": "libSettingsPlugin.so"},
             "routes": [{"request": "settings.show", "plugin": "settings", "manager": "Setings"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()

        let reply = shell.execute("send settings.show")

        guard case .error(let error) = reply.status else { throw TestFailure("no error: \(reply.status)") }
        #expect(
            error.hasSuffix(
                "plugin 'settings' exports no manager 'Setings' (did you mean 'Settings'?); it exports: About, Settings"
            ), "\(error)")
        #expect(reply.lines.isEmpty, "\(reply.lines)")
        #expect(reply.onScreen == nil)
    }
}
