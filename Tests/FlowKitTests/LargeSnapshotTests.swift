import Testing

@testable import FlowKit

/// A snapshot is a file the host reads: however many steps it has, and however they open child flows, tabs and
/// modals, restoring it takes time in proportion to it. Each step used to walk every open child (to open one,
/// to push inline, to find one by name, to finish one) and every tab or modal (to push onto one): the first two
/// tests took 27 and 21 s in a debug build, against 0.5 and 0.2 s. No time is asserted; the size is what
/// would show a walk per step coming back.
@MainActor
struct LargeSnapshotTests {
    /// How many of each: inline child flows, tabs, modal flows, pushes into the first tab.
    private let count = 3_000

    private let routes: RequestCoordinatorMappingDictionary = [
        RequestRoute(.page): route("Page", PageFlowManager.self),
        RequestRoute(.tab): route("Tab", NamedTabManager.self),
        RequestRoute(.create): route("Create", ModalFlowManager.self),
        RequestRoute(.push): route("Push", PresentingManager.self),
        RequestRoute(.nest): route("Nest", PageFlowManager.self),
        RequestRoute(.reset): route("Reset", WelcomeRootManager.self),
        RequestRoute(.settings): route("Settings", SwitchingSettingsManager.self),
        RequestRoute(.reauthenticate): route("Reauthenticate", ReauthenticateManager.self),
    ]

    /// A restorable coordinator on `routes`, started.
    private func app() -> BaseFlowCoordinator {
        let coordinator = BaseFlowCoordinator(name: "app", mapping: routes)
        coordinator.isRestorable = true
        coordinator.start()
        return coordinator
    }

    /// `count` inline child flows of the root, an Items tab then `count` more tabs, `count` modal flows, and
    /// `count` screens pushed by the Items tab's coordinator under them: a step each.
    private func walked() throws -> BaseFlowCoordinator {
        let app = app()
        for _ in 0..<count { try #require(app.requestCoordination(.page, from: "page").isHandled) }
        app.requestCoordination(.tab, payload: ["title": "Items", "module": "list"], from: "home")
        for _ in 0..<count {
            app.requestCoordination(.tab, payload: ["title": "More", "module": "more"], from: "home")
        }
        for _ in 0..<count { app.requestCoordination(.create, from: "more") }
        let items = try #require(app.children.first { $0.name == "items" })
        for _ in 0..<count { items.requestCoordination(.push, payload: ["module": "detail"], from: "list") }
        return app
    }

    @Test func thousandsOfChildFlowsTabsAndModalsComeBackAsSaved() throws {
        let saving = try walked()
        let saved = try FlowSnapshot(json: saving.snapshot().json)

        let restoring = app()
        let report = try restoring.restore(saved)

        #expect(saved.steps.count == 4 * count + 1)
        #expect(report.isComplete, "\(report.summary)")
        #expect(report.restored == 4 * count + 1)
        let state = restoring.router.state
        #expect(state == saving.router.state)
        #expect(state.stack.count == count)
        #expect(state.tabs.count == count + 1)
        #expect(state.tabs.first?.stack.count == count + 1, "the pushes landed in the Items tab, under the modals")
        #expect(state.modals.count == count)
        #expect(restoring.children.count == 3 * count + 1)
        #expect(restoring.snapshot() == saved, "a restored presentation saves as the one it came from")
    }

    @Test func aStepThatReplacesThousandsOfRestoredFlowsFinishesEveryOne() throws {
        let steps =
            Array(repeating: FlowSnapshot.Step(CoordinationRequest(.page), from: "page"), count: count)
            + Array(
                repeating: FlowSnapshot.Step(
                    CoordinationRequest(.tab, payload: ["title": "More", "module": "more"]), from: "home"),
                count: count)
            + Array(repeating: FlowSnapshot.Step(CoordinationRequest(.create), from: "more"), count: count)
            + [FlowSnapshot.Step(CoordinationRequest(.reset), from: "form", coordinator: ["flow"])]
        let crafted = FlowSnapshot(
            steps: steps, presentation: .init(stack: [.init("welcome", step: steps.count - 1)]))
        let restoring = app()
        let finished = Log()
        restoring.setDependency(.log, finished)

        let report = try restoring.restore(crafted)

        #expect(report.isComplete, "\(report.summary)")
        #expect(report.restored == steps.count)
        #expect(restoring.router.state == PresentationState(stack: ["welcome"], top: "welcome"))
        #expect(restoring.children.isEmpty)
        #expect(finished.count == count, "each modal flow's manager heard its flow finish, once")
    }

    /// A restore replaces the presentation there is: thousands of child flows finish, newest first, each
    /// looking for its screens from the top down (they were each looked for in every layer: 17 s in a debug
    /// build, against 0.1 s to restore them).
    @Test func restoringOverThousandsOfRestoredFlowsFinishesEveryOne() throws {
        let saved = try walked().snapshot()
        let restoring = app()
        try #require(try restoring.restore(saved).isComplete)

        let report = try restoring.restore(FlowSnapshot(steps: [], presentation: .init(stack: [])))

        #expect(report.isComplete, "\(report.summary)")
        let state = restoring.router.state
        #expect(state.stack.isEmpty && state.tabs.isEmpty && state.modals.isEmpty)
        #expect(restoring.children.isEmpty)
    }

    @Test func aSnapshotNestingThousandsOfFlowsRestoresAndClearsWithoutRunningOutOfStack() throws {
        // Each step names the deepest place and goes to the deepest coordinator open on the way, which opens one
        // more level. A file pays a name per level per step: 16 MiB reach about 1,600 levels of the demo's flows.
        let depth = 1_600
        let deepest = Array(repeating: "page", count: depth)
        let crafted = FlowSnapshot(
            steps: Array(
                repeating: FlowSnapshot.Step(CoordinationRequest(.nest), from: "page", coordinator: deepest),
                count: depth),
            presentation: .init(stack: []))
        let restoring = app()

        let report = try restoring.restore(crafted)
        var levels = 0
        var coordinator = restoring
        while let child = coordinator.children.first {
            levels += 1
            coordinator = child
        }
        let shown = restoring.router.state.stack.count
        let saved = restoring.snapshot()
        let cleared = try restoring.restore(FlowSnapshot(steps: [], presentation: .init(stack: [])))

        #expect(report.restored == depth)
        #expect(levels == depth)
        #expect(shown == depth)
        #expect(saved.children.count == depth)
        #expect(saved.children.last?.path == deepest)
        #expect(cleared.isComplete)
        #expect(restoring.children.isEmpty)
        #expect(coordinator.result == .cancelled, "the deepest flow finished with the rest")
    }

    /// An action step is performed on the module of its name its coordinator shows last, which the screens of the
    /// steps before it can bury: here each opens a flow over `settings` and shows a screen in it, as the settings'
    /// `switchUser` does. The module is looked up, not looked for from the top of the screen down past every
    /// screen above it (8,000 such steps took 2.8 s in a debug build, against 0.1 s).
    @Test func thousandsOfActionStepsFindTheirModuleUnderTheScreensOfTheOthers() throws {
        let actions = 8_000
        let steps =
            [FlowSnapshot.Step(CoordinationRequest(.settings), from: "home")]
            + Array(repeating: FlowSnapshot.Step(action: "switchUser", of: "settings"), count: actions)
        let crafted = FlowSnapshot(
            steps: steps,
            presentation: .init(
                stack: [.init("settings", step: 0)]
                    + (1...actions).map { .init("reauthenticate", coordinator: ["switchUser"], step: $0) }),
            children: (1...actions).map { .init(path: ["switchUser"], style: .inline, step: $0) })
        let restoring = app()
        let examined = restoring.router.modulesExamined

        let report = try restoring.restore(crafted)
        let examinedPerStep = Double(restoring.router.modulesExamined - examined) / Double(actions)

        #expect(report.isComplete, "\(report.summary)")
        #expect(report.restored == steps.count)
        #expect(examinedPerStep <= 2, "a step examines the modules of its name, not every screen above its own")
        #expect(restoring.router.state.stack == ["settings"] + Array(repeating: "reauthenticate", count: actions))
        #expect(restoring.children.count == actions)
        #expect(restoring.snapshot() == crafted, "a restored presentation saves as the one it came from")
    }

    /// Each held request restored is sent again, and its guard asks whether it comes from the flow of a redirect
    /// under way: looked up among what the held requests' flows are made of, not asked of every request held
    /// before it. Once the flow completes, every one resumes, in order. 4,000 took 5.7 s to restore and 2.2 s to
    /// resume in a debug build, against 0.05 and 0.1 s.
    @Test func thousandsOfHeldRequestsAreHeldAgainAndResumeInOrder() throws {
        let held = 4_000
        let saving = GuardedApp()
        saving.coordinator.isRestorable = true
        saving.coordinator.requestCoordination(CoordinationRequest(.catalogList), from: .app)
        var saved = saving.coordinator.snapshot()
        let waiting = try #require(saved.waiting.first)
        saved.waiting = (0..<held).map { index in
            var copy = waiting
            copy.request = CoordinationRequest(.catalogList, payload: ["module": .string("list\(index)")])
            return copy
        }
        let restoring = GuardedApp()
        restoring.coordinator.isRestorable = true

        let asked = restoring.coordinator.redirectQuestions
        let report = try restoring.coordinator.restore(saved)
        let askedRestoring = Double(restoring.coordinator.redirectQuestions - asked) / Double(held)
        let heldAgain = restoring.coordinator.heldRequests.map(\.request)
        let askedBefore = restoring.coordinator.redirectQuestions
        try restoring.perform("submit")
        let askedResuming = Double(restoring.coordinator.redirectQuestions - askedBefore) / Double(held)

        #expect(report.isComplete, "\(report.summary)")
        #expect(askedRestoring <= 4, "each request held again asks about a few flows, not every one held before it")
        #expect(askedResuming <= 4, "each request resumed asks about a few flows, not every one still held")
        #expect(report.waitingRestored == held)
        #expect(heldAgain == saved.waiting.map(\.request))
        #expect(restoring.coordinator.heldRequests.isEmpty)
        #expect(restoring.coordinator.router.state.stack == (0..<held).map { Coordinated("list\($0)") })
    }

    /// Held requests of two guards, each of which looks for the flow of its own guard and target under way (not past
    /// the other guard's), then thousands of steps after them, each of which may complete a flow: each flow is asked
    /// once whether it is still there, not once per request held for it (4,000 of each, then 4,000 such steps, took
    /// 38 s to restore in a debug build, against 0.15 s).
    @Test func thousandsOfHeldRequestsOfTwoGuardsStayHeldThroughThousandsOfStepsAfterThem() throws {
        let held = 4_000
        let guards = [
            RedirectGuard.signedIn(),
            RedirectGuard(
                name: "consented", requests: [try RequestPattern("detail.*")], unless: .context("consent"),
                redirect: CoordinationRequest(.consent)),
        ]
        let saving = GuardedApp(guards: guards)
        saving.coordinator.isRestorable = true
        saving.coordinator.requestCoordination(CoordinationRequest(.catalogList), from: .app)
        saving.coordinator.requestCoordination(CoordinationRequest(.showDetail), from: .app)
        var saved = saving.coordinator.snapshot()
        let (signedIn, consented) = (saved.waiting[0], saved.waiting[1])
        saved.waiting = (0..<2 * held).map { index in
            var copy = index < held ? signedIn : consented
            copy.request.payload = ["module": .string("screen\(index)")]
            return copy
        }
        saved.steps += Array(repeating: FlowSnapshot.Step(CoordinationRequest(.blink), from: "app"), count: held)
        let restoring = GuardedApp(guards: guards)
        restoring.coordinator.isRestorable = true
        restoring.coordinator.mapping[RequestRoute(.blink)] = route("Blink", BlinkingManager.self)
        let asked = restoring.coordinator.redirectQuestions

        let report = try restoring.coordinator.restore(saved)
        let askedPerRequest = Double(restoring.coordinator.redirectQuestions - asked) / Double(3 * held)

        #expect(report.isComplete, "\(report.summary)")
        #expect(askedPerRequest <= 4, "each held request and step asks about a few flows, not about every one held")
        #expect(report.restored == 2 + held)
        #expect(report.waitingRestored == 2 * held)
        #expect(restoring.coordinator.heldRequests.map(\.request) == saved.waiting.map(\.request))
        #expect(restoring.coordinator.heldRequests.map(\.guardName) == saved.waiting.map(\.guardName))
        #expect(restoring.coordinator.router.state.modals == [["signIn"], ["consent"]])
    }
}

// MARK: - Test Helpers

extension CoordinationRequestName {
    fileprivate static let page: Self = "large.page"
    fileprivate static let tab: Self = "large.tab"
    fileprivate static let create: Self = "large.create"
    fileprivate static let push: Self = "large.push"
    fileprivate static let nest: Self = "large.nest"
    fileprivate static let reset: Self = "large.reset"
    fileprivate static let settings: Self = "large.settings"
    fileprivate static let reauthenticate: Self = "large.reauthenticate"
    fileprivate static let blink: Self = "large.blink"
}

/// Opens an inline child flow `page` of its coordinator and shows a `page` in it.
@MainActor
private final class PageFlowManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(name: "page")
        coordinator.openChild(flow, style: .inline)
        flow.present(FlowModule("page", coordination: flow), style: .inline, by: self)
        return .finished
    }
}

/// A tab titled by the payload's `title`, run by a child coordinator of that name lowercased, showing the
/// payload's `module`.
@MainActor
private final class NamedTabManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let title = request.payload["title"]?.string ?? "Tab"
        let first = Coordinated(request.payload["module"]?.string ?? "screen")
        return presentInNewTab(title, coordinatorName: title.lowercased()) { FlowModule(first, coordination: $0) }
    }
}

/// Opens a modal child flow `flow` showing a `form`, and works until it finishes, counting that in the log.
@MainActor
private final class ModalFlowManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(name: "flow")
        coordinator.openChild(flow, style: .modal) { [weak self] _ in
            self?.log?.count += 1
            self?.finish()
        }
        flow.present(FlowModule("form", coordination: flow), style: .inline, by: self)
        return .working
    }
}

/// Makes `welcome` the root of the whole tree, from whichever coordinator it works for: every tab and modal
/// goes, and the flows that showed them finish.
@MainActor
private final class WelcomeRootManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        var root: any FlowCoordinator = coordinator
        while let parent = root.parentCoordinator { root = parent }
        root.present(FlowModule("welcome", coordination: root), style: .root, by: self)
        return .finished
    }
}

/// Shows `settings`, whose action `switchUser` opens an inline child flow `switchUser` over it and asks, from it,
/// for `large.reauthenticate`: a flow a module's action opens itself, as the settings plugin's does.
@MainActor
private final class SwitchingSettingsManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let settings = self.module(
            "settings",
            actions: [
                ModuleAction("switchUser") { settings, payload in
                    guard let host = settings.coordination as? BaseFlowCoordinator else { return nil }
                    let flow = BaseFlowCoordinator(name: "switchUser")
                    host.openChild(flow, style: .inline)
                    return flow.requestCoordination(.reauthenticate, payload: payload, from: settings.name)
                }
            ])
        return .present(settings, .inline)
    }
}

/// Pushes `reauthenticate`.
@MainActor
private final class ReauthenticateManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module("reauthenticate"), .inline)
    }
}

/// Shows `blink` and takes it away at once, finishing: something that might have been a redirect's flow went.
@MainActor
private final class BlinkingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        coordinator.present(self.module("blink"), style: .inline, by: self)
        finish()
        return .finished
    }
}

extension BaseFlowCoordinator {
    /// How many times this tree's held requests asked about flows (``RedirectState/questions``).
    fileprivate var redirectQuestions: Int {
        redirectState?.questions ?? 0
    }
}
