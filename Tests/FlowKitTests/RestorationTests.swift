import FlowKit
import Testing

/// Snapshots record the outermost request behind each group of screens; restoring replays them.
@MainActor
struct RestorationTests {
    /// A tab app: home with Items and Settings tabs, a detail pushed in a tab, a modal sub-flow.
    private let routes: RequestCoordinatorMappingDictionary = [
        RequestRoute(.home): route("Home", HomeManager.self),
        RequestRoute(.tab): route("Tab", TabManager.self),
        RequestRoute(.push): route("Push", PresentingManager.self),
        RequestRoute(.create): route("Create", CreateFlowManager.self),
    ]

    /// A restorable coordinator on `routes`, started.
    func app(_ mapping: RequestCoordinatorMappingDictionary? = nil) -> BaseFlowCoordinator {
        let coordinator = BaseFlowCoordinator(name: "app", mapping: mapping ?? routes)
        coordinator.isRestorable = true
        coordinator.start()
        return coordinator
    }

    /// Home, a detail pushed in the Items tab, the Settings tab selected with about pushed, and the
    /// create sub-flow opened modally from about.
    func walked() throws -> BaseFlowCoordinator {
        let app = app()
        try #require(app.requestCoordination(.home, from: "signIn").isHandled)
        let items = try #require(app.children.first)
        try #require(items.requestCoordination(.push, payload: ["module": "detail", "id": 2], from: "list").isHandled)
        try app.selectTab(1)
        let settings = try #require(app.children.last)
        try #require(settings.requestCoordination(.push, payload: ["module": "about"], from: "settings").isHandled)
        try #require(settings.requestCoordination(.create, from: "about").isHandled)
        return app
    }

    var walkedState: PresentationState {
        PresentationState(
            stack: ["home"],
            tabs: [
                .init(title: "Items", stack: ["list", "detail"]),
                .init(title: "Settings", stack: ["settings", "about"]),
            ],
            selectedTab: 1, modals: [["form"]], top: "form")
    }

    @Test func snapshotRecordsTheOutermostRequestOfEachGroupOfScreens() throws {
        let snapshot = try walked().snapshot()

        #expect(
            snapshot.steps == [
                .init(CoordinationRequest(.home), from: "signIn"),
                .init(
                    CoordinationRequest(.push, payload: ["module": "detail", "id": 2]), from: "list",
                    coordinator: ["items"], tab: 0),
                .init(
                    CoordinationRequest(.push, payload: ["module": "about"]), from: "settings",
                    coordinator: ["settings"], tab: 1),
                .init(CoordinationRequest(.create), from: "about", coordinator: ["settings"]),
            ])
        #expect(snapshot.presentation.stack == [.init("home", step: 0)])
        #expect(
            snapshot.presentation.tabs[0].stack == [
                .init("list", coordinator: ["items"], step: 0), .init("detail", coordinator: ["items"], step: 1),
            ])
        #expect(snapshot.presentation.modals == [[.init("form", coordinator: ["settings", "flow"], step: 3)]])
        #expect(snapshot.presentation.state == walkedState)
        #expect(
            snapshot.children == [
                .init(path: ["items"], style: .tab("Items"), step: 0),
                .init(path: ["settings"], style: .tab("Settings"), step: 0),
                .init(path: ["settings", "flow"], style: .modal, step: 3),
            ])
    }

    @Test func restoringIntoANewCoordinatorRebuildsTheSameScreensWithoutDuplicates() throws {
        let saved = try walked().snapshot()
        let restored = app()

        let report = try restored.restore(saved)

        #expect(report.isComplete, "\(report)")
        #expect(report.restored == 4)
        #expect(restored.router.state == walkedState)
        #expect(restored.children.map(\.name) == ["items", "settings"])
        #expect(restored.children[1].children.map(\.name) == ["flow"])
        #expect(restored.snapshot() == saved, "a restored presentation saves as the one it came from")
    }

    @Test func snapshotSurvivesItsJSONAndCodable() throws {
        let saved = try walked().snapshot()

        #expect(try FlowSnapshot(json: saved.json) == saved)
        #expect(try FlowSnapshot(json: JSONValue(parsing: saved.json.prettyDescription)) == saved)
        #expect(try JSONValue(encoding: saved).decode(FlowSnapshot.self) == saved)
        #expect(saved.json["steps"]?[1]?["payload"] == ["module": "detail", "id": 2])
        #expect(saved.json["children"]?[2] == ["path": ["settings", "flow"], "style": "modal", "step": 3])
    }

    @Test func restoreStepThatNoLongerRoutesIsReportedAndTheRestIsRestored() throws {
        let saved = try walked().snapshot()
        var mapping = routes
        mapping[RequestRoute(.create)] = nil
        let restored = app(mapping)

        let report = try restored.restore(saved)

        #expect(report.restored == 3)
        #expect(report.problems == [.init(step: 3, request: saved.steps[3], reason: .unhandled)])
        #expect(
            report.problems[0].description == "step 4 (create from about in settings): no route handles it any more")
        var expected = walkedState
        expected.modals = []
        expected.top = "about"
        #expect(restored.router.state == expected)
        #expect(!report.isComplete)
        #expect(report.summary == "restored 3 of 4 steps; the screen differs: modals none, saved form")
    }

    @Test func restoreClearsWhatWasPresentedAndCancelsOpenChildren() throws {
        let app = try walked()
        let saved = app.snapshot()
        let oldChildren = app.children + app.children.flatMap(\.children)
        try app.dismiss()
        try app.selectTab(0)
        app.children[0].requestCoordination(.push, payload: ["module": "extra"], from: "detail")

        let report = try app.restore(saved)

        #expect(report.isComplete, "\(report)")
        #expect(app.router.state == walkedState)
        #expect(oldChildren.map(\.result) == [.cancelled, .cancelled, .cancelled], "they went with the old screens")
        #expect(!app.children.contains { child in oldChildren.contains { $0 === child } })
    }

    @Test func requestReplayedFromTheQueueIsAStepOfItsOwn() throws {
        var mapping = routes
        mapping[RequestRoute(.needsStore)] = route("Stored", StoredPushManager.self)
        mapping[RequestRoute(.home)] = route("Home", LoadingHomeManager.self)
        let app = app(mapping)
        // Asked before the store is loaded, it waits; home loads the store, and it lands in the Items tab.
        #expect(app.requestCoordination(.needsStore, payload: ["module": "detail"], from: "link").isQueued)
        try #require(app.requestCoordination(.home, from: "signIn").isHandled)
        #expect(app.router.state.tabs[0].stack == ["list", "detail"])

        let saved = app.snapshot()
        let restored = self.app(mapping)
        let report = try restored.restore(saved)

        #expect(saved.steps.map(\.request.name) == [.home, .needsStore])
        #expect(saved.steps[1].tab == 0)
        #expect(report.isComplete, "\(report)")
        #expect(restored.router.state == app.router.state)
    }

    @Test func screenTheRootPushedOntoTheSelectedTabComesBackInThatTab() throws {
        let app = app()
        app.requestCoordination(.home, from: "signIn")
        try app.selectTab(1)
        // The root pushes onto the visible stack: the Settings tab's, as a deep link would.
        app.requestCoordination(.push, payload: ["module": "linked"], from: "settings")
        try app.selectTab(0)
        let saved = app.snapshot()

        let restored = self.app()
        let report = try restored.restore(saved)

        #expect(saved.steps[1].tab == 1)
        #expect(report.isComplete, "\(report)")
        #expect(restored.router.state.tabs.map(\.stack) == [["list"], ["settings", "linked"]])
        #expect(restored.router.state.selectedTab == 0)
    }

    @Test func stepsOfScreensLongGoneAreDroppedWithoutLosingTheShownOnes() throws {
        let app = try walked()
        let flow = try #require(app.children.last?.children.first)
        // Enough steps come and go for the recorder to drop the old ones several times over.
        for index in 0..<5000 {
            flow.requestCoordination(
                .push, payload: ["module": "transient", "n": .number(Double(index))], from: "form")
            try app.back()
        }

        let saved = app.snapshot()

        #expect(saved.steps.count == 4)
        #expect(saved.presentation.state == walkedState)
        #expect(try self.app().restore(saved).isComplete)
    }

    @Test func turningRestorationOffAndOnForgetsWhatWasRecorded() {
        let app = app()
        app.requestCoordination(.push, payload: ["module": "old"], from: .app)
        app.isRestorable = false
        app.isRestorable = true
        app.requestCoordination(.push, payload: ["module": "new"], from: "old")

        let saved = app.snapshot()

        #expect(saved.steps == [.init(CoordinationRequest(.push, payload: ["module": "new"]), from: "old")])
        #expect(saved.presentation.stack == [.init("old", step: nil), .init("new", step: 0)])
    }

    @Test func stepSentToAChildThatFinishedSinceIsSavedForItsNearestOpenAncestor() throws {
        var mapping = routes
        mapping[RequestRoute(.reset)] = route("Reset", ResetManager.self)
        let app = app(mapping)
        app.requestCoordination(.home, from: "signIn")
        let settings = try #require(app.children.last)
        // As a sign-out does: asked in the Settings tab, it makes the root start over, closing the tab.
        settings.requestCoordination(.reset, from: "settings")
        #expect(app.children.isEmpty)

        let saved = app.snapshot()
        let report = try self.app(mapping).restore(saved)

        #expect(saved.steps == [.init(CoordinationRequest(.reset), from: "settings", coordinator: [])])
        #expect(report.isComplete, "\(report)")
        #expect(report.state.stack == ["welcome"])
    }

    @Test func screenPresentedOutsideAnyRequestIsReportedAsNotRestorable() throws {
        let app = app()
        app.requestCoordination(.push, payload: ["module": "list"], from: .app)
        app.present(FlowModule("banner", coordination: app), style: .inline, by: nil)
        let saved = app.snapshot()

        let report = try self.app().restore(saved)

        #expect(saved.presentation.stack == [.init("list", step: 0), .init("banner", step: nil)])
        #expect(report.problems == [.init(step: nil, request: nil, module: "banner", reason: .notRecorded)])
        #expect(report.state.stack == ["list"])
    }

    @Test func withRestorationOffNothingIsRecorded() {
        let app = BaseFlowCoordinator(mapping: routes)
        #expect(!app.isRestorable)
        app.requestCoordination(.push, payload: ["module": "list"], from: .app)

        let saved = app.snapshot()

        #expect(saved.steps.isEmpty)
        #expect(saved.presentation.stack == [.init("list", step: nil)])
    }

    @Test func stepSentToAChildOpenedOutsideAnyStepGoesToItsNearestOpenAncestor() throws {
        let app = app()
        app.requestCoordination(.push, payload: ["module": "list"], from: .app)
        let adHoc = BaseFlowCoordinator(name: "adHoc")
        app.openChild(adHoc, style: .inline)  // outside any request or module action
        adHoc.requestCoordination(.push, payload: ["module": "form"], from: "list")
        let saved = app.snapshot()
        #expect(saved.children == [.init(path: ["adHoc"], style: .inline, step: nil)])

        let restored = self.app()
        let report = try restored.restore(saved)

        #expect(report.problems == [.init(step: 1, request: saved.steps[1], reason: .coordinatorMissing(sentTo: []))])
        #expect(restored.router.state.stack == ["list", "form"], "the screen comes back, in the root coordinator")
    }

    @Test func whatAWorkingManagerPresentsLaterBelongsToTheRequestThatStartedIt() throws {
        var mapping = routes
        mapping[RequestRoute(.work)] = route("Later", LaterManager.self)
        let app = app(mapping)
        app.requestCoordination(.work, from: .app)
        LaterManager.pending.removeFirst().presentNow()

        let saved = app.snapshot()

        #expect(saved.steps == [.init(CoordinationRequest(.work), from: .app)])
        #expect(saved.presentation.stack == [.init("later", step: 0)])
    }
}

// MARK: - Test Helpers

extension CoordinationRequestName {
    fileprivate static let home: Self = "home.show"
    fileprivate static let tab: Self = "tab.show"
    fileprivate static let push: Self = "push"
    fileprivate static let create: Self = "create"
    fileprivate static let form: Self = "form.show"
    fileprivate static let reset: Self = "reset"
}

/// Home as the root, then, asking as `home`, an Items and a Settings tab: one step for all three.
@MainActor
private final class HomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        coordinator.present(self.module("home"), style: .root, by: self)
        for (title, first) in [("Items", "list"), ("Settings", "settings")] {
            let outcome = coordinator.requestCoordination(
                .tab, payload: ["title": .string(title), "module": .string(first)], from: "home")
            if case .failed(let error) = outcome { throw error }
        }
        return .finished
    }
}

/// Like `HomeManager`, but loads the store after opening the tabs, as the demo's does.
@MainActor
private final class LoadingHomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let home = HomeManager(coordinator: coordinator)
        _ = try home.start(request, from: module)
        coordinator.setDependency(.store, "loaded")
        return .finished
    }
}

/// A tab run by a child coordinator named after the title, lowercased.
@MainActor
private final class TabManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let title = request.payload["title"]?.string ?? "Tab"
        let first = Coordinated(request.payload["module"]?.string ?? "screen")
        return presentInNewTab(title, coordinatorName: title.lowercased()) { FlowModule(first, coordination: $0) }
    }
}

/// Opens a modal child `flow` and shows its form there, as the demo's item creation does.
@MainActor
private final class CreateFlowManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(
            name: "flow", mapping: [RequestRoute(.form): route("Form", PresentingManager.self)])
        coordinator.openChild(flow, style: .modal, onResult: { [weak self] _ in self?.finish() })
        flow.requestCoordination(.form, payload: ["module": "form"], from: "flow")
        return .working
    }
}

/// Pushes like `PresentingManager`, but needs the store.
@MainActor
private final class StoredPushManager: FlowManager {
    override class var requirements: [DependencyKey] { [.store] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module(Coordinated(request.payload["module"]?.string ?? "screen")), .inline)
    }
}

/// Presents `welcome` as the root of the whole tree, from whichever coordinator it works for.
@MainActor
private final class ResetManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        var root: any FlowCoordinator = coordinator
        while let parent = root.parentCoordinator { root = parent }
        root.present(FlowModule("welcome", coordination: root), style: .root, by: self)
        return .finished
    }
}

/// Keeps working, and presents `later` when the test says so, outside any request.
@MainActor
private final class LaterManager: FlowManager {
    static var pending: [LaterManager] = []

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        Self.pending.append(self)
        return .working
    }

    func presentNow() {
        coordinator.present(self.module("later"), style: .inline, by: self)
    }
}
