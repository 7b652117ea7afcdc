import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// What the shell prints: events in causal order, services by manifest name, and hints for mistyped
/// requests, actions and modules, in the error line as well as the output.
@MainActor
struct ShellOutputTests {
    private func demo() throws -> HostShell {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
        return shell
    }

    // MARK: - Causal order

    @Test func aRequestIsPrintedBeforeWhatItsManagerDid() throws {
        let reply = try demo().execute("act signIn")

        #expect(
            reply.lines == [
                "auth.signIn from welcome: handled by auth.SignIn (libAuthPlugin.so)",
                "  presented signIn (modal)",
                "top: signIn",
            ])
    }

    @Test func requestsAManagerMakesAreIndentedUnderTheRequestItHandles() throws {
        let shell = try demo()
        shell.execute("act signIn")

        let reply = shell.execute(#"act submit {"user": "ada"}"#)

        #expect(
            reply.lines == [
                "removed signIn",
                "ended auth.SignIn: finished",
                "home.show from signIn: handled by catalog.Home (libCatalogPlugin.so)",
                "  presented home (root)",
                "  removed welcome",
                "  ended welcome.Launch: dismissed",
                "  catalog.list from home: handled by catalog.ItemList (libCatalogPlugin.so)",
                "    opened child items (tab 'Items')",
                "    presented itemList (inline)",
                "  settings.show from home: handled by settings.Settings (libSettingsPlugin.so)",
                "    opened child settings (tab 'Settings')",
                "    presented settings (inline)",
                "  dependency catalog.store set",
                "top: itemList",
            ])
    }

    /// FlowKit names a child flow's manager without its plugin (`OnboardingPage`); the shell prints it as it
    /// prints a routed one, with its plugin and library, whether the request is made within the plugin's
    /// request that opened the flow or sent later from one of the flow's pages.
    @Test func aChildFlowsManagerIsPrintedWithItsPluginAndLibrary() throws {
        let shell = try demo()

        let opened = shell.execute("send onboarding.show")
        let next = shell.execute("act next")

        #expect(
            opened.lines.contains(
                "  onboarding.page from onboarding: handled by welcome.OnboardingPage (libWelcomePlugin.so)"),
            "\(opened.lines)")
        #expect(
            next.lines.first
                == "onboarding.page from onboardingPage: handled by welcome.OnboardingPage (libWelcomePlugin.so)")
    }

    @Test func aFailedRequestIsOneLineNamingTheManagerAndTheCause() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"auth": "libAuthPlugin.so"},
             "routes": [{"request": "auth.signOut", "plugin": "auth", "manager": "SignOut"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()

        let reply = shell.execute("send auth.signOut")

        let cause =
            #"dependency 'auth.session' is not set; start the service with {"plugin": "auth", "service": "Session"}"#
        #expect(
            reply.lines == [
                "auth.signOut from app: failed in auth.SignOut (libAuthPlugin.so): \(cause)",
                "top: (nothing)",
            ])
        #expect(reply.status == .error("auth.signOut failed: \(cause)"))
    }

    /// An action's request that fails is named in the error, as a sent one is: a script's error line said only
    /// `action 'open' failed: no item with id 99` (found by a trial).
    @Test func anActionWhoseRequestFailsNamesTheRequestInTheError() throws {
        let shell = try demo()
        _ = shell.execute("send auth.signIn")
        _ = shell.execute("act submit")

        let reply = shell.execute(#"act open {"id": 99}"#)

        #expect(reply.status == .error("catalog.detail (asked by action 'open') failed: no item with id 99"))
        #expect(
            reply.lines == [
                "catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 99",
                "top: itemList",
            ])
    }

    /// An action that fails on its own, after a request it asked for failed, is not blamed on that request.
    @Test func anActionThatFailsOnItsOwnIsNotBlamedOnARequestItAskedFor() throws {
        let shell = try demo()
        _ = shell.execute("send auth.signIn")
        _ = shell.execute("act submit")
        let coordinator = shell.host.coordinator
        let checkout = FlowModule(
            "checkout",
            actions: [
                ModuleAction("pay") { module, _ in
                    module.requestCoordination("catalog.detail", payload: ["id": 99])
                    return .failed(FlowError("the card was declined"))
                }
            ], coordination: coordinator)
        coordinator.present(checkout, style: .inline, by: nil)

        let reply = shell.execute("act pay")

        #expect(reply.status == .error("action 'pay' failed: the card was declined"))
    }

    /// Where no screen shows the step's line and the error together (a script, a log), the error names the
    /// step's request, as a sent request's does.
    @Test func aDeepLinkStepThatFailsNamesItsRequestInTheError() throws {
        let shell = try demo()
        _ = shell.execute("send auth.signIn")
        _ = shell.execute("act submit")

        let reply = shell.execute("open demo://items/99")

        #expect(
            reply.status == .error("deep link stopped at step 1 of 1: catalog.detail failed: no item with id 99"))
        #expect(
            reply.lines == [
                "catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 99",
                "top: itemList",
            ])
    }

    // MARK: - Services

    @Test func servicesAreReportedByTheirManifestNames() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))

        let lines = shell.start().lines

        #expect(
            lines.filter { $0.hasPrefix("service ") } == [
                "service auth.Session started", "service catalog.Store started", "service settings.Analytics started",
            ])
    }

    @Test func aServiceTypeNoManifestEntryStartedKeepsItsTypeName() throws {
        let host = try Host.bundled("manifests/demo.json")

        #expect(host.namingServices(.serviceStopped("SessionService")) == .serviceStopped("auth.Session"))
        #expect(host.namingServices(.serviceStarted("OtherService")) == .serviceStarted("OtherService"))
    }

    // MARK: - Hints in the error line

    @Test func aMistypedActionSuggestsTheNearestActionInTheError() throws {
        let shell = try demo()

        #expect(
            shell.execute("act signn").status
                == .error("module 'welcome' has no action 'signn' (it has: getStarted, signIn); did you mean 'signIn'?")
        )
        #expect(
            shell.execute("act fly").status
                == .error("module 'welcome' has no action 'fly' (it has: getStarted, signIn)"))
    }

    /// The welcome plugin declares onboarding.show and nothing near 'onboarding.shows': the manifest's route
    /// is the likely typo, not the action; a request nothing declares still gets "did you mean".
    @Test func anActionWhoseRequestHasNoRouteNamesTheRequestAndTheManifestsNearRoute() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"welcome": "libWelcomePlugin.so"},
             "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                        {"request": "onboarding.shows", "plugin": "welcome", "manager": "Onboarding"}],
             "start": ["launch"]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()

        #expect(
            shell.execute("act getStarted").status
                == .error(
                    "no route handles onboarding.show (asked by action 'getStarted'); the manifest routes 'onboarding.shows': a typo there?"
                ))
        #expect(
            shell.execute("send onboarding.shwo").status
                == .error("no route handles onboarding.shwo; did you mean 'onboarding.shows'?"))
    }

    @Test func aDeepLinkStepWithNoRouteSuggestsTheNearestRoute() throws {
        #expect(
            try demo().execute(#"deeplink [{"request": "settings.abuot"}]"#).status
                == .error(
                    "deep link stopped at step 1 of 1: no route handles settings.abuot; did you mean 'settings.about'?")
        )
    }

    @Test func aRequestRoutedOnlyFromOtherModulesSaysFromWhich() throws {
        let shell = try routedFromSettingsOnly()

        #expect(
            shell.execute("send settings.about from app").status
                == .error("no route handles settings.about; settings.about is routed only from 'settings'"))
    }

    /// A manifest that lists a plugin leaves its declared routes out: the error gives the route to add, once the
    /// plugin is loaded. It said only that no route handles the request (an author who added a `DeclaredRoute`
    /// and rebuilt, as docs/authoring.md's wave modal does, was left to guess).
    @Test func aRequestALoadedPluginDeclaresButTheManifestLacksSaysTheRouteToAdd() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
             "routes": [{"request": "settings.show", "plugin": "settings", "manager": "Settings"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()
        #expect(shell.execute("send settings.show").status == .ok)

        #expect(
            shell.execute("send settings.about").status
                == .error(
                    #"no route handles settings.about; plugin 'settings' declares a route for settings.about that the "#
                        + #"manifest does not have: add {"request": "settings.about", "plugin": "settings", "manager": "#
                        + #""About"} to its routes"#))
    }

    /// A route to a manager the plugin does not export (greeter V3 declares `bye` and exports no `Farewell`) is
    /// not offered: the manifest could not take it.
    @Test func aDeclaredRouteToAManagerNotExportedIsNotOffered() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"greeter": "libGreeterPluginV3.so"},
             "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()
        #expect(shell.execute("send greet").status == .ok)

        #expect(shell.execute("send bye").status == .error("no route handles bye"))
    }

    /// The route to add is the one that takes the request from where it was sent: auth declares `auth.signIn`
    /// from anywhere (`SignIn`) and from settings (`Reauthenticate`). The hint offered the first to a request
    /// sent from settings, which the plugin hands to the second.
    @Test func theRouteToAddIsTheOneForTheSender() throws {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"auth": "libAuthPlugin.so"},
             "routes": [{"request": "auth.signOut", "plugin": "auth", "manager": "SignOut"}],
             "services": [{"plugin": "auth", "service": "Session"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()
        #expect(shell.execute("send auth.signOut").status == .ok)
        func error(of line: String) -> String {
            if case .error(let message) = shell.execute(line).status { message } else { "" }
        }

        #expect(
            error(of: "send auth.signIn from settings").contains(
                #"add {"request": "auth.signIn", "from": "settings", "plugin": "auth", "manager": "Reauthenticate"}"#))
        #expect(
            error(of: "send auth.signIn from app").contains(
                #"add {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"}"#))
    }

    /// In a manifest that discovers its plugins, a declared route is there unless set aside: the error says
    /// which and why, where it told the person to add the route an `exclude.routes` entry took out.
    @Test func aDeclaredRouteSetAsideIsSaidSoNotOfferedToAdd() throws {
        let lab = try DropInLab(
            members: #""exclude": {"routes": [{"request": "settings.about", "plugin": "settings"}]}"#)
        try lab.add("libAuthPlugin.so")
        try lab.add("libSettingsPlugin.so")
        let shell = HostShell(host: try lab.host())
        _ = shell.start()
        #expect(shell.execute("send settings.show").status == .ok)

        #expect(
            shell.execute("send settings.about").status
                == .error(
                    "no route handles settings.about; plugin 'settings' declares a route for settings.about, set "
                        + "aside: excluded by exclude.routes[0]"))
    }

    /// The same for the routes of a plugin the manifest excludes whole: they said only `no route handles`
    /// (found by a trial), where an excluded route said why.
    @Test func aRouteOfAnExcludedPluginSaysItIsExcluded() throws {
        let lab = try DropInLab(members: #""exclude": {"plugins": ["settings"]}"#)
        try lab.add("libAuthPlugin.so")
        try lab.add("libSettingsPlugin.so")
        let shell = HostShell(host: try lab.host())
        _ = shell.start()

        #expect(
            shell.execute("send settings.show").status
                == .error(
                    "no route handles settings.show; plugin 'settings' declares a route for settings.show, but is "
                        + "excluded by exclude.plugins[0]"))
    }

    @Test func aRequestRoutedOnlyInsideAChildFlowSaysWhichFlowAndPlugin() throws {
        let shell = try demo()

        #expect(
            shell.execute("send onboarding.page").status
                == .error(
                    "no route handles onboarding.page; plugin 'welcome' routes onboarding.page only inside its child "
                        + "flow 'onboarding', whose modules' actions send it"))
    }

    // MARK: - Unknown sender modules

    @Test func sendingAsAModuleNobodyKnowsWarnsWithTheNearestKnownModule() throws {
        let shell = try demo()

        let reply = shell.execute("send auth.signIn from setings")

        #expect(reply.status == .ok)
        #expect(
            reply.lines.contains(
                "warning: module 'setings' is not on screen and no route names it; did you mean 'settings'?"))
    }

    @Test func sendingAsAModuleOnScreenOrNamedByARouteOrAsTheAppIsQuiet() throws {
        let shell = try demo()

        for sender in ["welcome", "settings", "app"] {
            let reply = shell.execute("send auth.signIn from \(sender)")
            #expect(!reply.lines.contains { $0.hasPrefix("warning:") }, "from \(sender)")
            shell.execute("dismiss")
        }
    }

    @Test func aWarningWithoutANearbyNameSaysOnlyWhatIsWrong() throws {
        let reply = try demo().execute("send auth.signIn from zzzzzzzz")

        #expect(reply.lines.contains("warning: module 'zzzzzzzz' is not on screen and no route names it"))
    }

    @Test func anUnhandledSendFromAnUnknownModulePutsTheModuleHintInTheError() throws {
        let shell = try routedFromSettingsOnly()

        let reply = shell.execute("send settings.about from setings")

        #expect(
            reply.status
                == .error(
                    "no route handles settings.about; settings.about is routed only from 'settings'; module 'setings' is not on screen and no route names it; did you mean 'settings'?"
                ))
    }

    // MARK: - Test Helpers

    /// A shell whose only route is `settings.about` from `settings`.
    private func routedFromSettingsOnly() throws -> HostShell {
        let host = try Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so"},
             "routes": [{"request": "settings.about", "from": "settings", "plugin": "settings", "manager": "About"}]}
            """)
        let shell = HostShell(host: host)
        _ = shell.start()
        return shell
    }
}
