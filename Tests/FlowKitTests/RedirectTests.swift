import FlowKit
import Testing

/// Redirects: the original request is held, resumed when the redirect's flow completes with the guard
/// satisfied, dropped when it is cancelled; no loops.
@MainActor
struct RedirectTests {
    private let list = CoordinationRequest(.catalogList, payload: ["module": "list"])

    @Test func redirectHoldsTheRequestAndResumesItWhenTheFlowCompletes() throws {
        let app = GuardedApp()

        let outcome = app.coordinator.requestCoordination(list, from: "home")

        let held = HeldRequest(
            id: 1, request: list, module: "home", redirect: CoordinationRequest(.signIn), guardName: "signedIn")
        #expect(outcome == .redirected(held))
        #expect(outcome.description == "redirected to auth.signIn")
        #expect(app.coordinator.router.state.modals == [["signIn"]])
        #expect(app.coordinator.heldRequests == [held])

        try app.perform("submit")

        #expect(app.coordinator.router.state.modals.isEmpty)
        #expect(app.coordinator.router.state.stack == ["list"], "resumed from where it was asked")
        #expect(app.coordinator.heldRequests.isEmpty)
        #expect(
            app.redirectEvents == [
                "catalog.list from home redirected to auth.signIn by guard 'signedIn'",
                "catalog.list from home held until the flow of auth.signIn completes",
                "resuming catalog.list from home: the flow of auth.signIn completed",
            ])
    }

    @Test func aRequestNoRouteHandlesIsUnhandledRatherThanRedirected() {
        let app = GuardedApp()

        let outcome = app.coordinator.requestCoordination(CoordinationRequest("catalog.lst"), from: "home")

        #expect(outcome == .unhandled, "a typo is reported at once, not after signing in")
        #expect(app.coordinator.router.state.modals.isEmpty)
        #expect(app.coordinator.heldRequests.isEmpty)
    }

    @Test func aFlowThatClosesAndThenAsksForMoreIsJudgedAfterAllOfIt() throws {
        let app = GuardedApp()
        app.coordinator.requestCoordination(list, from: "welcome")

        try app.perform("submitAndGoHome")

        #expect(
            app.coordinator.router.state.stack == ["home", "list"],
            "resumed after the action's new root, not replaced by it")
    }

    @Test func guardsComeFirstAndAResumedRequestMayThenWaitForItsDependencies() throws {
        let app = GuardedApp()
        let stored = CoordinationRequest("catalog.stored", payload: ["n": 1])

        #expect(app.coordinator.requestCoordination(stored, from: "home").isRedirected, "not queued: guarded first")
        try app.perform("submit")
        #expect(app.coordinator.queuedRequests == [stored], "resumed, then queued for the store")
        #expect(app.log.entries.isEmpty)

        app.coordinator.setDependency(.store, "ready")

        #expect(app.log.entries == ["store 1"])
        #expect(app.coordinator.queuedRequests.isEmpty)
    }

    @Test func dismissingTheRedirectDropsTheHeldRequestAndSaysSo() throws {
        let app = GuardedApp()
        app.coordinator.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        guard case .redirected(let held) = app.coordinator.requestCoordination(list, from: "home") else {
            Issue.record("not redirected")
            return
        }

        try app.coordinator.dismiss()

        #expect(app.coordinator.router.state == PresentationState(stack: ["home"], top: "home"), "as it was")
        #expect(app.coordinator.heldRequests.isEmpty)
        #expect(
            app.events.last
                == .redirectCancelled(
                    held,
                    reason:
                        "the flow of auth.signIn ended, and guard 'signedIn' still redirects it: context user is not set (MutableSession provides the context)"
                ))
        app.session.user = "ada"
        app.coordinator.requestCoordination(.showDetail, payload: ["module": "detail"], from: "home")
        #expect(app.coordinator.router.state.stack == ["home", "detail"], "a dropped request never comes back")
    }

    @Test func closingTheFlowWithoutSatisfyingTheGuardCancelsToo() throws {
        let app = GuardedApp()
        app.coordinator.requestCoordination(list, from: "home")

        try app.perform("cancel")

        #expect(app.coordinator.router.state.top == nil)
        #expect(app.coordinator.heldRequests.isEmpty)
        #expect(app.redirectEvents.last?.hasPrefix("catalog.list from home dropped:") == true)
    }

    @Test func redirectTargetMatchingTheSameGuardIsNotRedirectedAgain() throws {
        let everything = RedirectGuard(
            name: "all", requests: [try RequestPattern("*")], unless: .context("user"),
            redirect: CoordinationRequest(.signIn))
        let app = GuardedApp(guards: [everything])

        let outcome = app.coordinator.requestCoordination(list, from: "home")

        #expect(outcome.isRedirected)
        #expect(app.coordinator.router.state.modals == [["signIn"]], "auth.signIn was sent, not redirected to itself")
        try app.perform("submit")
        #expect(app.coordinator.router.state.stack == ["list"])
    }

    @Test func resumedRequestRedirectedAgainBySameGuardFailsInsteadOfLooping() throws {
        var asked = 0
        // Redirects when asked first and third: the re-check after the flow passes, the resumed request
        // does not.
        let fickle = ClosureGuard("fickle") { request, _, _ in
            guard request.name == .catalogList else { return .proceed }
            asked += 1
            return asked == 2 ? .proceed : .redirect(CoordinationRequest(.signIn))
        }
        let app = GuardedApp(guards: [fickle])
        app.coordinator.requestCoordination(list, from: "home")

        try app.perform("submit")

        #expect(asked == 3)
        #expect(app.coordinator.router.state.modals.isEmpty, "no second sign-in")
        #expect(app.coordinator.heldRequests.isEmpty)
        #expect(
            app.events.contains(
                .failed(
                    list, from: "home",
                    error: FlowError(
                        "'catalog.list' redirected again by guard 'fickle' after the flow of 'auth.signIn' completed; a guard must let a request through once its redirect did its work"
                    ))))
    }

    @Test func requestsRedirectedWhileTheFlowIsUnderWayWaitForItInOrder() throws {
        let app = GuardedApp()
        app.coordinator.requestCoordination(list, from: "home")
        let second = CoordinationRequest(.catalogList, payload: ["module": "other"])

        // From another screen: one the sign-in flow showed would pass the guard, being part of its flow.
        let outcome = app.coordinator.requestCoordination(second, from: "menu")

        #expect(outcome.isRedirected)
        #expect(app.coordinator.router.state.modals == [["signIn"]], "one sign-in for both")
        #expect(app.coordinator.heldRequests.map(\.request) == [list, second])
        try app.perform("submit")
        #expect(app.coordinator.router.state.stack == ["list", "other"])
    }

    @Test func aHeldDeepLinkStepHoldsTheRestOfTheLink() throws {
        let app = GuardedApp()
        let detail = CoordinationRequest(.showDetail, payload: ["module": "detail"])

        let result = app.coordinator.open(deepLink: [list, detail])

        #expect(result.isWaiting)
        #expect(
            result.description == "deep link waiting at step 1 of 2, with the 1 later step: redirected to auth.signIn")
        #expect(app.coordinator.router.state.stack.isEmpty, "the later step waits")
        try app.perform("submit")
        #expect(app.coordinator.router.state.stack == ["list", "detail"])
    }

    @Test func aCancelledDeepLinkStepDropsTheRestOfTheLink() throws {
        let app = GuardedApp()
        app.coordinator.open(deepLink: [list, CoordinationRequest(.showDetail, payload: ["module": "detail"])])

        try app.coordinator.dismiss()

        #expect(app.coordinator.router.state.top == nil)
        #expect(
            app.redirectEvents.last
                == "catalog.list from deepLink dropped: the flow of auth.signIn ended, and guard 'signedIn' still redirects it: context user is not set (MutableSession provides the context); the deep link ends here, its 1 later step is dropped"
        )
    }

    @Test func aRedirectThatIsNotHandledFailsTheRequest() {
        let app = GuardedApp(guards: [RedirectGuard.signedIn(redirect: "auth.nowhere")])

        let outcome = app.coordinator.requestCoordination(list, from: "home")

        #expect(
            outcome
                == .failed(
                    FlowError("guard 'signedIn' redirected 'catalog.list' to 'auth.nowhere', which no route handles")))
        #expect(app.coordinator.heldRequests.isEmpty)
    }

    @Test func aRedirectThatLeavesNothingBehindCompletesAtOnce() {
        let app = GuardedApp(guards: [RedirectGuard.signedIn(redirect: .quickSignIn)])

        let outcome = app.coordinator.requestCoordination(list, from: "home")

        #expect(outcome.isRedirected)
        #expect(app.coordinator.router.state.stack == ["list"], "resumed before requestCoordination returned")
        #expect(app.coordinator.heldRequests.isEmpty)
    }

    @Test func aWorkingRedirectHoldsTheRequestUntilItsManagerFinishes() throws {
        let app = GuardedApp(guards: [RedirectGuard.signedIn(redirect: .slowSignIn)])
        app.coordinator.requestCoordination(list, from: "home")
        let manager = try #require(app.log.managers.last?.object)
        #expect(app.coordinator.heldRequests.count == 1)

        app.session.user = "ada"
        #expect(app.coordinator.router.state.stack.isEmpty, "the flow is still working")
        app.coordinator.finish(manager)

        #expect(app.coordinator.router.state.stack == ["list"])
        #expect(app.coordinator.heldRequests.isEmpty)
    }

    @Test func aRedirectToAChildFlowCompletesWhenTheChildFinishes() throws {
        let app = GuardedApp(guards: [RedirectGuard.signedIn(redirect: .childSignIn)])
        app.coordinator.requestCoordination(list, from: "home")
        #expect(app.coordinator.router.state.modals == [["signInForm"]])
        #expect(app.coordinator.children.map(\.name) == ["signInFlow"])

        try app.perform("submit")

        #expect(app.coordinator.children.isEmpty)
        #expect(app.coordinator.router.state == PresentationState(stack: ["list"], top: "list"))
        #expect(app.coordinator.heldRequests.isEmpty)
    }

    @Test func aRequestHeldInAChildThatFinishesIsDropped() throws {
        let app = GuardedApp()
        let child = BaseFlowCoordinator(name: "child")
        app.coordinator.openChild(child, style: .tab("Tab"))
        child.requestCoordination(list, from: "tabScreen")
        #expect(app.coordinator.router.state.modals == [["signIn"]])

        child.finish(with: .cancelled)

        #expect(app.coordinator.router.state.modals.isEmpty, "the child's redirect went with it")
        #expect(app.coordinator.heldRequests.isEmpty)
        #expect(
            app.redirectEvents.last
                == "catalog.list from tabScreen dropped: the coordinator it was asked in has finished")
    }

    @Test func aRedirectThatIsItselfRedirectedWaitsForBothFlows() throws {
        let consent = RedirectGuard(
            name: "consent", requests: [try RequestPattern("auth.*")], unless: .context("consent"),
            redirect: CoordinationRequest(.consent))
        let app = GuardedApp(guards: [RedirectGuard.signedIn(), consent])

        let outcome = app.coordinator.requestCoordination(list, from: "home")

        #expect(outcome.isRedirected)
        #expect(app.coordinator.router.state.modals == [["consent"]])
        try app.perform("accept")
        #expect(app.coordinator.router.state.modals == [["signIn"]], "the sign-in resumed after consent")
        #expect(app.coordinator.heldRequests.map(\.request.name) == [.catalogList])
        try app.perform("submit")
        #expect(app.coordinator.router.state == PresentationState(stack: ["list"], top: "list"))
        #expect(app.coordinator.heldRequests.isEmpty)
    }
}
