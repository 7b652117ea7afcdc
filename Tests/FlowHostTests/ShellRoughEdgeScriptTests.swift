import Testing

@testable import FlowHost

/// The rough edges people hit in the shell, each as they hit it: typed into a `flowhost` process (piped, as
/// a script reads), with the whole of what it printed checked, not only the line that was fixed.
struct ShellRoughEdgeScriptTests {
    private let manifest = Repository.path("manifests/demo.json")

    @Test func aMistypedCommandIsOneErrorWithTheCommandMeantAndNoScreenBeforeIt() throws {
        let run = try Subprocess.flowhost(["run", manifest], input: "stak\n")

        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "<stdin>:1: error: unknown command 'stak'; did you mean 'stack'? type 'help' for the list"
            ])
        let afterCommand = run.outputLines.drop { $0 != "> stak" }.dropFirst()
        #expect(afterCommand.allSatisfy { $0.hasPrefix("  service ") || $0.isEmpty }, "\(afterCommand)")
    }

    @Test func helpListsEveryCommandWithItsFlagsAndExpectTitleChecksTheTitle() throws {
        let help = try Subprocess.flowhost(["run", manifest, "--quiet"], input: "help\n")
        let title = try Subprocess.flowhost(
            ["run", manifest, "--quiet"], input: "expect title Welcome\nexpect title Nope\n")

        #expect(help.status == 0)
        #expect(help.standardOutput.contains("    stats [--json]  "))
        #expect(help.standardOutput.contains("    expect title TEXT  "))
        #expect(title.status == 1)
        #expect(title.errorLines == ["<stdin>:2: expectation failed: title is 'Welcome', expected 'Nope'"])
    }

    @Test func aURLWithTheWrongTypeNamesTheNearestPatternAndWhyItDoesNotMatch() throws {
        let run = try Subprocess.flowhost(["run", manifest, "--quiet"], input: "open demo://items/abc\n")

        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "<stdin>:1: error: no deep link matches 'demo://items/abc'; nearest pattern: 'demo://items/{id:int}' ('abc' is not an int)"
            ])
    }

    @Test func aScriptMayExpectARequestToFindNoRouteOnTheNextLine() throws {
        let expected = try Subprocess.flowhost(
            ["run", manifest, "--quiet"],
            input: "send settings.abuot\n# the typo is the test\nexpect outcome unhandled\nexpect top welcome\n")
        let unexpected = try Subprocess.flowhost(
            ["run", manifest, "--quiet"], input: "send settings.abuot\nexpect outcome handled\n")
        let other = try Subprocess.flowhost(["run", manifest, "--quiet"], input: "send settings.abuot\nstack\n")
        let last = try Subprocess.flowhost(["run", manifest, "--quiet"], input: "send settings.abuot\n")

        #expect(expected.status == 0, "\(expected.standardError)")
        #expect(expected.standardOutput.isEmpty && expected.standardError.isEmpty)
        #expect(unexpected.status == 1)
        #expect(
            unexpected.errorLines == [
                "<stdin>:2: expectation failed: outcome is 'unhandled', expected 'handled'",
                "<stdin>:1: note: no route handles settings.abuot; did you mean 'settings.about'?",
            ])
        // Any other command, or the end, stops the run at the request, as before; the command is not run.
        for run in [other, last] {
            #expect(run.status == 1)
            #expect(
                run.errorLines == [
                    "<stdin>:1: error: no route handles settings.abuot; did you mean 'settings.about'?"
                ])
            #expect(run.standardOutput.isEmpty, "stack did not run")
        }
    }

    @Test func aDeepLinkOpenedOverTheSignInAGuardRedirectedToIsHeldToo() throws {
        // The sign-in form is on screen, so the second link's step is sent from it: it is not the sign-in
        // flow's own request, and must not pass the guard as one.
        let run = try Subprocess.flowhost(
            ["run", manifest, "--quiet"],
            input: """
                act signIn
                act submit {"user": "ada"}
                tab 1
                act signOut
                open demo://items/2
                expect outcome redirected
                open demo://items/3
                expect outcome redirected
                expect top signIn
                act submit {"user": "grace"}
                stack
                show

                """)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.outputLines.filter { !$0.isEmpty } == [
                "  stack: home", "  tab 0* 'Items': itemList > itemDetail > itemDetail", "  tab 1 'Settings': settings",
                "  top: itemDetail", "  itemDetail: Rope", #"  content: {"id":3,"title":"Rope"}"#,
                "  action settings: open the settings",
            ])
    }

    @Test func aManifestWithOnlyItsVersionIsToldItCanDiscoverInstead() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("app.json", containing: #"{"manifestVersion":1}"#)

        let run = try Subprocess.flowhost(["validate", file])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                #"\#(file): missing required keys "plugins" and "routes"; list the plugins and route requests to their managers, or discover plugins that declare their routes with "discover": ["DIRECTORY"]"#,
                "\(file): 1 problem found",
            ])
    }
}
