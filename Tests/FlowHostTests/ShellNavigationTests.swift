import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// `back root`, `back to MODULE` and `open URL`, on the demo app with the real plugins.
@MainActor
struct ShellNavigationTests {
    /// A shell on the demo app, signed in as ada: the Items tab is selected, showing the item list.
    private func signedIn() throws -> HostShell {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        shell.execute("act signIn")
        shell.execute(#"act submit {"user": "ada"}"#)
        return shell
    }

    @Test func openURLAppliesTheManifestsDeepLinkWithItsCapture() throws {
        let shell = try signedIn()

        let reply = shell.execute("open demo://items/3")

        #expect(reply.status == .ok)
        #expect(reply.lines.contains("deep link applied: 1 of 1 steps"))
        #expect(shell.execute("expect stack itemList > itemDetail").status == .ok)
        #expect(shell.execute("expect content id 3").status == .ok)
    }

    /// A capture without a type gives text, which a manager decoding a number refuses: the error says how to
    /// make it a number, in the pattern the person wrote.
    @Test func aStepRefusingTheTextOfAnUntypedCaptureSaysToTypeIt() throws {
        let demo = try readText(Repository.path("manifests/demo.json"))
        let untyped =
            #"{ "pattern": "demo://item/{id}", "requests": [{ "request": "catalog.detail", "payload": { "id": "{id}" } }] },"#
        let text = demo.replacing(#""deepLinks": ["#, with: #""deepLinks": ["# + untyped)
        try #require(text != demo)
        let shell = HostShell(host: try Host.parsing(text))
        _ = shell.start()
        shell.execute("act signIn")
        shell.execute(#"act submit {"user": "ada"}"#)

        let untypedReply = shell.execute("open demo://item/2")
        let typedReply = shell.execute("open demo://items/2")

        #expect(
            untypedReply.status
                == .error(
                    #"deep link stopped at step 1 of 1: catalog.detail failed: catalog.detail got an unexpected payload {"id":"2"}: id: expected an integer (Int) but found a string; the link's {id} captures text: write {id:int} in its pattern 'demo://item/{id}' for a number"#
                ))
        // Its other forms keep the hint: on a screen, where the error replaces the step's line, and under that
        // line on one stream, where the error refers to it.
        let hint = "; the link's {id} captures text: write {id:int} in its pattern 'demo://item/{id}' for a number"
        #expect(
            untypedReply.onScreen?.error
                == #"deep link stopped at step 1 of 1: catalog.detail failed in catalog.ItemDetail (libCatalogPlugin.so): catalog.detail got an unexpected payload {"id":"2"}: id: expected an integer (Int) but found a string"#
                + hint)
        #expect(
            untypedReply.referringError == "deep link stopped at step 1 of 1: catalog.detail failed (said above)" + hint
        )
        #expect(typedReply.status == .ok, "\(typedReply.status)")
    }

    @Test func unknownURLNamesTheNearestPattern() throws {
        let shell = try signedIn()

        #expect(
            shell.execute("open demo://itmes/3").status
                == .error("no deep link matches 'demo://itmes/3'; nearest pattern: 'demo://items/{id:int}'"))
        #expect(shell.execute("open").status == .error("usage: open URL"))
    }

    @Test func urlOpenedWhileSignedOutShowsSignInThenLandsInTheItemsTab() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()

        let reply = shell.execute("open demo://items/2")

        #expect(
            reply.lines == [
                "catalog.detail from welcome: redirected to auth.signIn by guard 'signedIn'",
                "  auth.signIn from welcome: handled by auth.SignIn (libAuthPlugin.so)",
                "    presented signIn (modal)",
                "deep link waiting at step 1 of 1: redirected to auth.signIn",
                "top: signIn",
            ])
        #expect(shell.execute("expect outcome redirected to auth.signIn").status == .ok)
        #expect(shell.execute("expect stack signIn").status == .ok)
        #expect(shell.execute("expect modals 1").status == .ok)

        let submit = shell.execute(#"act submit {"user": "ada"}"#)

        #expect(submit.lines.contains("resuming catalog.detail from welcome: the flow of auth.signIn completed"))
        #expect(shell.execute("expect modals 0").status == .ok)
        #expect(shell.execute("expect tabs 'Items'* 'Settings'").status == .ok)
        #expect(shell.execute("expect stack itemList > itemDetail").status == .ok)
        #expect(shell.execute("expect content id 2").status == .ok)
    }

    /// A second link whose step the same guard would redirect while its sign-in is under way joins that flow:
    /// held, not redirected again, and the link's line says so, as its event line does. Both resume after
    /// sign-in, in order.
    @Test func aSecondURLOpenedWhileTheSignInIsUnderWaySaysItIsHeldNotRedirected() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        shell.execute("open demo://items/2")

        let second = shell.execute("open demo://items/3")
        let third = shell.execute(#"deeplink [{"request": "catalog.detail", "payload": {"id": 1}}, "catalog.list"]"#)

        #expect(
            second.lines == [
                "catalog.detail from signIn: held until the flow of auth.signIn, under way, completes",
                "deep link waiting at step 1 of 1: held until the flow of auth.signIn, under way, completes",
                "top: signIn",
            ])
        #expect(
            third.lines.dropFirst().first
                == "deep link waiting at step 1 of 2, with the 1 later step: held until the flow of auth.signIn, under way, completes"
        )
        #expect(shell.execute("expect outcome redirected to auth.signIn").status == .ok, "the outcome is FlowKit's")
        let submit = shell.execute(#"act submit {"user": "ada"}"#)
        #expect(
            submit.lines.filter { $0.hasPrefix("resuming ") } == [
                "resuming catalog.detail from welcome: the flow of auth.signIn completed",
                "resuming catalog.detail from signIn: the flow of auth.signIn completed",
                "resuming catalog.detail from signIn: the flow of auth.signIn completed",
            ])
    }

    @Test func dismissingTheSignInDropsTheURLAndLeavesTheScreenAsItWas() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        shell.execute("open demo://items/2")

        let dismiss = shell.execute("dismiss")

        #expect(
            dismiss.lines == [
                "removed signIn",
                "ended auth.SignIn: dismissed",
                "catalog.detail from welcome dropped: the flow of auth.signIn ended, and guard 'signedIn' still redirects it: context user is not set (SessionService provides the context)",
                "top: welcome",
            ])
        #expect(shell.execute("expect outcome cancelled").status == .ok)
        #expect(
            shell.execute("expect outcome redirected").status
                == .expectationFailed(
                    "expectation failed: outcome is 'cancelled: the flow of auth.signIn ended, and guard 'signedIn' still redirects it: context user is not set (SessionService provides the context)', expected 'redirected'"
                ))
        #expect(shell.execute("expect stack welcome").status == .ok)
        #expect(shell.execute("expect modals 0").status == .ok)
        shell.execute("act signIn")
        shell.execute(#"act submit {"user": "ada"}"#)
        #expect(shell.execute("expect stack itemList").status == .ok, "the dropped item never comes back")
    }

    @Test func backRootAndBackToPopSeveralScreens() throws {
        let shell = try signedIn()
        shell.execute(#"act open {"id": 1}"#)
        shell.execute("open demo://items/2")
        #expect(shell.execute("expect stack itemList > itemDetail > itemDetail").status == .ok)

        #expect(
            shell.execute("back to itemDetail").status == .error("nothing to go back to: 'itemDetail' is already there")
        )
        #expect(shell.execute("back to itemList").status == .ok)
        #expect(shell.execute("expect stack itemList").status == .ok)
        #expect(shell.execute("back root").status == .error("nothing to go back to: 'itemList' is already there"))
        #expect(shell.execute("back to home").status == .error("'home' is not on the visible stack (itemList)"))
        #expect(
            shell.execute("back to itemLst").status
                == .error("'itemLst' is not on the visible stack (itemList); did you mean 'itemList'?"))
        #expect(shell.execute("back sideways").status == .error("usage: back | back root | back to MODULE"))
    }
}

/// `flowhost run --open URL`: the deep link is applied after the start requests.
struct RunOpenTests {
    private let manifest = Repository.path("manifests/demo.json")

    @Test func openAtStartShowsSignInLikeATypedOne() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file(
            "walk.flow",
            containing:
                "expect top signIn\nact submit {\"user\": \"ada\"}\nexpect stack itemList > itemDetail\nexpect content id 2\n"
        )

        let run = try Subprocess.flowhost(["run", manifest, "--open", "demo://items/2", "--script", script])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.contains("  deep link waiting at step 1 of 1: redirected to auth.signIn"))
    }

    @Test func unknownURLAtStartFailsTheRunNamingTheNearestPattern() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("walk.flow", containing: "stack\n")

        let run = try Subprocess.flowhost(["run", manifest, "--open", "demo://item/2", "--script", script])

        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "\(manifest): --open: no deep link matches 'demo://item/2'; nearest pattern: 'demo://items/{id:int}'"
            ])
    }

    @Test func aURLAtStartWhoseStepFailsNamesOpenAndTheStep() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
                 "routes": [{"request": "settings.about", "plugin": "settings", "manager": "Abot"}],
                 "deepLinks": [{"pattern": "app://about", "requests": ["settings.about"]}]}
                """)

        let run = try Subprocess.flowhost(
            ["run", manifest, "--open", "app://about"], input: "", environment: directory.cacheEnvironment)

        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "\(manifest): --open: deep link stopped at step 1 of 1: settings.about failed: \(manifest): routes[0].manager: plugin 'settings' exports no manager 'Abot' (did you mean 'About'?); it exports: About, Settings"
            ])
    }

    /// Not a URL at all: a usage error before any plugin loads or any service starts.
    @Test(arguments: ["items/2", "demo://items/ 2", ""])
    func aLinkThatIsNotAURLIsAUsageErrorBeforeTheStart(url: String) throws {
        let run = try Subprocess.flowhost(["run", manifest, "--open", url])

        #expect(run.status == 64)
        #expect(run.errorLines.first == "flowhost: --open needs a URL (scheme://host/path), not '\(url)'")
        #expect(run.standardOutput.isEmpty, "nothing started: \(run.standardOutput)")
    }
}
