import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// A manager of a plugin's child flow, which FlowKit names without its plugin (the catalog's `CreateForm`,
/// registered in the `createItem` flow's own mapping; the welcome plugin's `OnboardingPage`), is named
/// `plugin.Manager` wherever the shell shows a manager: its `handled by` line, its end, `stats`, `stats
/// --json` and `expect outcome`, as a manager the manifest routes is.
@MainActor
struct ChildFlowManagerNameTests {
    @Test func aChildFlowsManagerIsNamedWithItsPluginInEveryLineAndInStats() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        shell.execute("act signIn")
        shell.execute(#"act submit {"user": "ada"}"#)

        let opened = shell.execute("act create")
        #expect(opened.lines.contains { $0.hasSuffix("handled by catalog.CreateForm (libCatalogPlugin.so)") })
        #expect(shell.execute("expect outcome handled by catalog.CreateItem").status == .ok)
        let saved = shell.execute(#"act save {"title": "Tent"}"#)
        #expect(saved.lines.contains("ended catalog.CreateForm: its coordinator finished"), "\(saved.lines)")

        let stats = shell.execute("stats").lines
        #expect(stats.contains("  catalog.CreateForm: 1"), "\(stats)")
        #expect(!stats.contains { $0.hasPrefix("  CreateForm:") }, "\(stats)")
        let json = try #require(shell.execute("stats --json").lines.first)
        #expect(json.contains(#""catalog.CreateForm":1"#) && !json.contains(#""CreateForm""#), "\(json)")
    }

    @Test func expectOutcomeNamesAChildFlowsManagerAsItsLineDoes() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        shell.execute("act getStarted")
        shell.execute("act next")

        #expect(shell.execute("expect outcome handled by welcome.OnboardingPage").status == .ok)
        #expect(shell.execute("expect outcome handled by OnboardingPage").status == .ok, "as FlowKit names it")
        #expect(
            shell.execute("expect outcome handled by welcome.Launch").status
                == .expectationFailed(
                    "expectation failed: outcome is 'handled by welcome.OnboardingPage', expected 'handled by welcome.Launch'"
                ))
    }

    @Test func statsNameADeclaredChildFlowsManagerWithItsPluginWhenNoLineDid() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        shell.describesEvents = false  // --quiet: no line resolved it
        _ = shell.start()
        shell.execute("act getStarted")
        shell.execute("act next")

        // The welcome plugin declares the route of its onboarding flow to OnboardingPage.
        let stats = shell.execute("stats").lines
        #expect(stats.contains("  welcome.OnboardingPage: 2"), "\(stats)")
    }
}
