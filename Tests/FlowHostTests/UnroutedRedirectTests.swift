import FlowComposition
import FlowKit
import FlowManifest
import PluginLoading
import Testing

@testable import FlowHost
@testable import FlowShell

/// A guard whose redirect no route handles, because the manifest set the redirect's declared route aside
/// (found by a trial): the request fails, and every line says so and why.
@MainActor
struct UnroutedRedirectTests {
    /// A discovering manifest that excludes auth's sign-in route, with a guard on the tour redirecting to it.
    private func shell() throws -> (HostShell, DropInLab) {
        let lab = try DropInLab(
            members: #""exclude": {"routes": [{"request": "auth.signIn"}]}, "guards": [{"name": "signedIn", "#
                + #""requests": ["onboarding.*"], "unless": {"context": "user"}, "redirect": "auth.signIn"}]"#)
        try lab.add("libWelcomePlugin.so")
        try lab.add("libAuthPlugin.so")
        let shell = HostShell(host: try lab.host())
        _ = shell.start()
        _ = shell.execute("send launch")
        return (shell, lab)
    }

    /// The request's line said `redirected to auth.signIn by guard 'signedIn': guard 'signedIn' redirected ...`
    /// for a request that failed; and the action's error named the redirect (`auth.signIn (asked by action
    /// 'getStarted') failed`), a request the action did not ask for, where it names the one it asked for.
    @Test func anActionsGuardedRequestFailsAndSaysSoOnItsLineAndInTheError() throws {
        let (shell, _) = try shell()

        let reply = shell.execute("act getStarted")

        let cause = "guard 'signedIn' redirected 'onboarding.show' to 'auth.signIn', which no route handles"
        #expect(reply.status == .error("onboarding.show (asked by action 'getStarted') failed: \(cause)"))
        #expect(
            reply.lines == [
                "onboarding.show from welcome: failed: \(cause)",
                "  auth.signIn from welcome: unhandled, no route; plugin 'auth' declares a route for auth.signIn, set "
                    + "aside: excluded by exclude.routes[0]",
                "top: welcome",
            ], "\(reply.lines)")
    }

    /// The manifest's own guard, checked once the routes are composed: it said `did you mean "auth.signOut"?`,
    /// which reads as a typo to fix in a request excluded on purpose.
    @Test func theManifestsGuardSaysItsRedirectsRouteIsSetAsideNotANameThatLooksAlike() throws {
        let (shell, lab) = try shell()

        #expect(
            shell.host.composition?.unroutedRedirects.map(\.description) == [
                "\(lab.manifestPath): guards[0].redirect: no route handles \"auth.signIn\"; plugin 'auth' declares a route "
                    + "for auth.signIn, set aside: excluded by exclude.routes[0]"
            ])
    }

    /// The same of a guard a plugin declares (the catalog's `signedIn`), said as the plugin's problem.
    @Test func aPluginsGuardSaysItsRedirectsRouteIsSetAside() throws {
        let lab = try DropInLab(members: #""exclude": {"routes": [{"request": "auth.signIn"}]}"#)
        try lab.add("libAuthPlugin.so")
        let catalog = try lab.add("libCatalogPlugin.so")

        let host = try lab.host()

        #expect(
            host.problems.map(\.description).contains(
                "\(catalog): plugin 'catalog' declares guard 'signedIn' redirecting to 'auth.signIn', which no route "
                    + "handles (plugin 'auth' declares a route for auth.signIn, set aside: excluded by "
                    + "exclude.routes[0]); the requests it guards fail until one does"),
            "\(host.problems)")
    }

    /// A start request whose declared route is excluded says so rather than suggest a name.
    @Test func aStartRequestWhoseRouteIsExcludedSaysSo() throws {
        let lab = try DropInLab(members: #""exclude": {"routes": [{"request": "launch"}]}, "start": ["launch"]"#)
        try lab.add("libWelcomePlugin.so")

        let host = try lab.host()

        #expect(
            host.composition?.unroutedStarts.map(\.message) == [
                "no route handles \"launch\" from the app, which sends the start requests; plugin 'welcome' declares "
                    + "a route for launch, set aside: excluded by exclude.routes[0]"
            ])
    }
}
