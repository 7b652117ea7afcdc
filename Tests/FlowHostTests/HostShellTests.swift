import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// The shell's commands and their errors, on a host with the real settings plugin.
@MainActor
struct HostShellTests {
    private func shell() throws -> HostShell {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "About"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()
        return shell
    }

    @Test func sendReportsTheManagerAndPluginThatHandledIt() throws {
        let reply = try shell().execute("send settings.about")

        #expect(reply.status == .ok)
        #expect(
            reply.lines == [
                "settings.about from app: handled by settings.About (libSettingsPlugin.so)",
                "  presented about (inline)",
                "top: about",
            ])
    }

    /// What `--quiet` and simulated subjects ask for: the same command, its status and what is on top, and no
    /// line describing its events, since nobody would print them; a failed expectation still says why.
    @Test func aShellThatDescribesNoEventsRepliesWithTheTopAlone() throws {
        let shell = try shell()
        shell.describesEvents = false

        let reply = shell.execute("send settings.about")

        #expect(reply.status == .ok)
        #expect(reply.lines == ["top: about"])
        #expect(shell.events.count == 3, "the events are still kept: \(shell.events)")
        #expect(
            shell.execute("expect top settings").lines == ["expectation failed: top is 'about', expected 'settings'"])
    }

    @Test func typoInARequestNameSuggestsTheRouteAndFailsTheCommand() throws {
        let reply = try shell().execute("send settings.abuot")

        #expect(reply.status == .error("no route handles settings.abuot; did you mean 'settings.about'?"))
        #expect(!reply.lines.contains { $0.contains("settings.abuot") }, "the error says it, once: \(reply.lines)")
    }

    @Test func payloadThatIsNotJSONSaysWhere() throws {
        let reply = try shell().execute(#"send settings.about {"a": }"#)

        #expect(reply.status == .error("the payload is not JSON: line 1, column 7: unexpected character '}'"))
    }

    @Test func aPayloadWithoutItsRequestADeepLinkThatIsNotJSONAndWordsAfterQuitAreRefused() throws {
        let shell = try shell()

        #expect(shell.execute(#"send  {"id": 1}"#).status == .error("usage: send REQUEST [from MODULE] [JSON]"))
        #expect(
            shell.execute(#"deeplink [{"request":"#).status
                == .error("the deep link is not JSON: line 1, column 13: unexpected end of input"))
        #expect(shell.execute("quit now").status == .error("usage: quit, with nothing after it"))
        #expect(shell.execute("exit").status == .quit)
    }

    /// A query or `dismiss` with words after it refuses them, as `quit` does: `show about` or `stack --json` ran
    /// the command and ignored them, so a line meant for something else looked as if it worked.
    @Test func wordsAfterACommandThatTakesNoneAreRefused() throws {
        let shell = try shell()

        for command in ["stack", "show", "actions", "dismiss"] {
            #expect(shell.execute("\(command) about").status == .error("usage: \(command), with nothing after it"))
        }
        #expect(shell.execute("stack").status == .ok)
    }

    @Test func unknownCommandPointsToHelp() throws {
        #expect(try shell().execute("jump").status == .error("unknown command 'jump'; type 'help' for the list"))
    }

    @Test func aMistypedCommandIsOnlyTheErrorWithTheCommandMeant() throws {
        let reply = try shell().execute("relod manifest")

        #expect(reply.lines.isEmpty, "nothing ran, so nothing but the error is printed")
        #expect(reply.status == .error("unknown command 'relod'; did you mean 'reload'? type 'help' for the list"))
    }

    @Test func expectTitleComparesTheVisibleModulesTitle() throws {
        let shell = try shell()
        #expect(
            shell.execute("expect title About").status
                == .expectationFailed("expectation failed: title is nothing (nothing is presented), expected 'About'"))
        shell.execute("send settings.about")
        let title = try #require(shell.host.coordinator.router.top?.title)

        #expect(shell.execute("expect title \(title)").status == .ok)
        #expect(
            shell.execute("expect title About FlowHost").status
                == .expectationFailed("expectation failed: title is '\(title)', expected 'About FlowHost'"))
        #expect(shell.execute("expect title").status == .error("usage: expect title TEXT"))
    }

    @Test func theHelpInTheShellDocIsTheShellsOwn() throws {
        let doc = try readText(Repository.path("docs/shell.md"))
        let demo = HostShell(host: try Host.bundled("manifests/demo.json"))
        let help = demo.execute("help").lines.dropFirst().map { $0.dropFirst(2) }.joined(separator: "\n")

        #expect(doc.contains("```\n" + help + "\n```\n"), "docs/shell.md's help block differs from the demo's help")
    }

    @Test func expectationThatFailsSaysWhatIsOnTop() throws {
        let shell = try shell()
        shell.execute("send settings.about")

        #expect(shell.execute("expect top about").status == .ok)
        #expect(
            shell.execute("expect top settings").status
                == .expectationFailed("expectation failed: top is 'about', expected 'settings'"))
    }

    @Test func unknownActionListsTheActionsThere() throws {
        let shell = try shell()
        shell.execute("send settings.about")

        #expect(shell.execute("act fly").status == .error("module 'about' has no action 'fly' (it has: none)"))
    }

    @Test func commentsAndBlankLinesDoNothing() throws {
        let shell = try shell()

        #expect(shell.execute("# a comment").lines.isEmpty)
        #expect(shell.execute("   ").lines.isEmpty)
    }

    @Test func reloadOfAnUnknownPluginNamesThePlugins() throws {
        #expect(
            try shell().execute("reload setings").status == .error("no plugin named 'setings'; plugins: auth, settings")
        )
    }
}
