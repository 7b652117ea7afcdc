import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// Every `expect` form passing and failing with its message, on the demo app with the real plugins.
@MainActor
struct ShellExpectationTests {
    /// A shell on the demo app, started: welcome is on screen.
    private func demo() throws -> HostShell {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        return shell
    }

    /// A shell on the demo app, signed in as ada: the Items tab is selected, showing the item list.
    private func signedIn() throws -> HostShell {
        let shell = try demo()
        shell.execute("act signIn")
        shell.execute(#"act submit {"user": "ada"}"#)
        return shell
    }

    private func failure(_ message: String) -> HostShell.Status { .expectationFailed("expectation failed: \(message)") }

    // MARK: - stack

    @Test func stackIsTheMainStackWithoutTabsOrModals() throws {
        let shell = try demo()

        #expect(shell.execute("expect stack welcome").status == .ok)
        #expect(
            shell.execute("expect stack home > welcome").status
                == failure("stack is 'welcome', expected 'home > welcome'"))
    }

    @Test func stackIsTheSelectedTabsWithTabsAndTheTopModalsWithModals() throws {
        let shell = try signedIn()
        shell.execute(#"act open {"id": 2}"#)

        #expect(shell.execute("expect stack itemList > itemDetail").status == .ok)
        #expect(
            shell.execute("expect stack home").status == failure("stack is 'itemList > itemDetail', expected 'home'"))
        shell.execute("tab 1")
        #expect(shell.execute("expect stack settings").status == .ok)
        shell.execute("deeplink [{\"request\": \"catalog.create\"}]")
        #expect(shell.execute("expect stack createItemForm").status == .ok)
        #expect(
            shell.execute("expect stack settings > createItemForm").status
                == failure("stack is 'createItemForm', expected 'settings > createItemForm'"))
    }

    @Test func stackWithAnEmptyNameIsAUsageError() throws {
        #expect(
            try demo().execute("expect stack welcome >").status
                == .error("usage: expect stack A > B > C (bottom first)"))
    }

    @Test func anUnknownExpectationListsTheKnownOnes() throws {
        #expect(
            try demo().execute("expect colour blue").status
                == .error(
                    "unknown expectation 'colour'; expect top, title, stack, modals, tabs, no tabs, content or outcome"
                ))
    }

    /// A mistyped expectation gets its "did you mean", as a mistyped command does; it had only the list.
    @Test func aMistypedExpectationGetsADidYouMean() throws {
        let shell = try demo()
        #expect(
            shell.execute("expect outcom handled").status
                == .error(
                    "unknown expectation 'outcom'; did you mean 'outcome'? expect top, title, stack, modals, tabs, no tabs, content or outcome"
                ))
        #expect(
            shell.execute("expect no tab").status
                == .error(
                    "unknown expectation 'no tab'; did you mean 'no tabs'? expect top, title, stack, modals, tabs, no tabs, content or outcome"
                ))
    }

    // MARK: - modals

    @Test func modalsCountsTheModalLayersAndNamesTheirStacksWhenWrong() throws {
        let shell = try demo()
        #expect(shell.execute("expect modals 0").status == .ok)

        shell.execute("act signIn")

        #expect(shell.execute("expect modals 1").status == .ok)
        #expect(shell.execute("expect modals 0").status == failure("modals is 1 ('signIn'), expected 0"))
        #expect(
            shell.execute("expect modals many").status == .error("usage: expect modals N (a count from 0), got 'many'"))
    }

    // MARK: - tabs

    @Test func tabsAreTheTitlesInOrderWithTheSelectedOneStarred() throws {
        let shell = try signedIn()

        #expect(shell.execute("expect tabs 'Items'* 'Settings'").status == .ok)
        #expect(
            shell.execute("expect tabs 'Items' 'Settings'*").status
                == failure("tabs are 'Items'* 'Settings', expected 'Items' 'Settings'*"))
        #expect(
            shell.execute("expect tabs 'Items'*").status == failure("tabs are 'Items'* 'Settings', expected 'Items'*"))
        #expect(shell.execute("expect no tabs").status == failure("tabs are 'Items'* 'Settings', expected none"))
    }

    @Test func noTabsPassesWithoutTabsAndTabsFailsSayingNone() throws {
        let shell = try demo()

        #expect(shell.execute("expect no tabs").status == .ok)
        #expect(shell.execute("expect tabs 'Items'*").status == failure("tabs are none, expected 'Items'*"))
    }

    @Test func tabTitlesMayHoldSpaces() throws {
        let host = try Host.parsing(#"{"manifestVersion": 1, "plugins": {}, "routes": []}"#)
        host.coordinator.present(FlowModule("mine", coordination: nil), style: .tab("My Items"), by: nil)
        host.coordinator.present(FlowModule("shared", coordination: nil), style: .tab("Shared with me"), by: nil)
        let shell = HostShell(host: host)

        #expect(shell.execute("expect tabs 'My Items'*  'Shared with me'").status == .ok)
        #expect(
            shell.execute("expect tabs 'My Items' 'Shared with me'*").status
                == failure("tabs are 'My Items'* 'Shared with me', expected 'My Items' 'Shared with me'*"))
    }

    @Test(arguments: ["Items", "'Items' 'Settings'", "'Items'* 'Settings'*", "'Items'x", "'Items", ""])
    func tabsNeedQuotedTitlesAndExactlyOneStar(_ arguments: String) throws {
        #expect(
            try signedIn().execute("expect tabs \(arguments)").status
                == .error(
                    "usage: expect tabs 'TITLE'... with * after the selected one, e.g. expect tabs 'Items'* 'Settings'")
        )
    }

    // MARK: - content

    @Test func contentComparesTheValueAtAPathOfTheVisibleModule() throws {
        let shell = try signedIn()

        #expect(shell.execute(#"expect content items.1.title "Lantern""#).status == .ok)
        #expect(shell.execute(#"expect content items.1 {"title": "Lantern", "id": 2}"#).status == .ok)
        #expect(
            shell.execute(#"expect content items.1.title "Tent""#).status
                == failure(#"content items.1.title of 'itemList' is "Lantern", expected "Tent""#))
    }

    @Test func contentAtAMissingPathSaysHowFarThePathGoes() throws {
        let shell = try signedIn()

        #expect(
            shell.execute(#"expect content items.9.title "Tent""#).status
                == failure(
                    "the content of 'itemList' has nothing at 'items.9.title': 'items' is an array of 3 elements"))
        #expect(
            shell.execute(#"expect content user "ada""#).status
                == failure("the content of 'itemList' has nothing at 'user': the content is an object with keys items"))
        #expect(
            shell.execute(#"expect content items.0.title.first "C""#).status
                == failure(
                    "the content of 'itemList' has nothing at 'items.0.title.first': 'items.0.title' is a string"))
    }

    @Test func contentNeedsAPathAndAJSONValue() throws {
        let shell = try demo()

        #expect(shell.execute("expect content headline").status == .error("usage: expect content PATH JSON"))
        #expect(
            shell.execute("expect content headline Pack").status
                == .error(
                    "expect content headline: the expected value is not JSON: line 1, column 1: unexpected character 'P'"
                ))
    }

    // MARK: - outcome

    @Test func outcomeIsTheStartRequestsUntilACommandSendsOne() throws {
        let shell = try demo()

        #expect(shell.execute("expect outcome handled").status == .ok)
        #expect(shell.execute("expect outcome handled by welcome.Launch").status == .ok)
        #expect(
            shell.execute("expect outcome handled by auth.SignIn").status
                == failure("outcome is 'handled by welcome.Launch', expected 'handled by auth.SignIn'"))
        #expect(
            shell.execute("expect outcome queued").status
                == failure("outcome is 'handled by welcome.Launch', expected 'queued'"))
    }

    @Test func outcomeFollowsSendActAndTheLastStepOfADeepLink() throws {
        let shell = try demo()

        shell.execute(
            #"deeplink [{"request": "onboarding.show"}, {"request": "catalog.detail", "payload": {"id": 2}}]"#)
        // Signed out, the demo's guard redirects the item to sign-in; closing it drops the item.
        #expect(shell.execute("expect outcome redirected").status == .ok)
        shell.execute("act cancel")
        shell.execute("act next")
        #expect(shell.execute("expect outcome handled by OnboardingPage").status == .ok)
        shell.execute("send nowhere")
        #expect(shell.execute("expect outcome unhandled").status == .ok)
        shell.execute("tab 0")
        #expect(shell.execute("expect outcome unhandled").status == .ok, "a command that sends nothing keeps it")
    }

    @Test func aMistypedCommandKeepsTheLastOutcome() throws {
        let shell = try demo()
        for mistake in ["send", "send auth.signIn {not json", "act nope", #"act signIn {"a": "#] {
            #expect(shell.execute(mistake).status != .ok, "\(mistake)")
            #expect(
                shell.execute("expect outcome handled by welcome.Launch").status == .ok,
                "'\(mistake)' sent nothing, so the start's outcome stands")
        }
    }

    @Test func anActionThatHandsItsWorkOnReportsTheRequestItCaused() throws {
        let shell = try demo()
        shell.execute("act getStarted")
        shell.execute("act next")
        shell.execute("act next")

        shell.execute("act done")

        #expect(shell.execute("expect outcome handled by auth.SignIn").status == .ok)
    }

    @Test func anActionThatSendsNothingLeavesNoOutcome() throws {
        let shell = try signedIn()
        shell.execute("tab 1")
        shell.execute("act switchUser")

        shell.execute(#"act submit {"user": "grace"}"#)

        #expect(
            shell.execute("expect outcome handled").status
                == failure("the last command sent no request, expected 'handled'"))
    }

    @Test func outcomeFailedMatchesARequestWhoseManagerCouldNotBeFound() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "Nope"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()

        #expect(shell.execute("send settings.about").status != .ok)
        #expect(shell.execute("expect outcome failed").status == .ok)
        #expect(shell.execute("expect outcome unhandled").status.isFailedExpectation)
    }

    @Test(arguments: ["", "maybe", "handled by", "handled with x", "queued now", "redirected by x", "cancelled now"])
    func outcomeWithoutAKnownFormIsAUsageError(_ arguments: String) throws {
        #expect(
            try demo().execute("expect outcome \(arguments)").status
                == .error(
                    "usage: expect outcome handled [by MANAGER] | unhandled | queued | failed | redirected [to REQUEST] | cancelled"
                ))
    }

    /// A trial's `expect outcome fialed` got the usage alone, where a mistyped expectation gets the one meant.
    @Test func aMistypedOutcomeGetsTheOneMeant() throws {
        #expect(
            try demo().execute("expect outcome fialed").status
                == .error(
                    "unknown outcome 'fialed'; did you mean 'failed'? usage: expect outcome handled [by MANAGER] | unhandled | queued | failed | redirected [to REQUEST] | cancelled"
                ))
    }
}

// MARK: - Test Helpers

extension HostShell.Status {
    fileprivate var isFailedExpectation: Bool {
        if case .expectationFailed = self { return true }
        return false
    }
}
