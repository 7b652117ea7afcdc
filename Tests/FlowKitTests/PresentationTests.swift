import FlowKit
import Testing

@MainActor
struct PresentationTests {
    private func coordinator() -> BaseFlowCoordinator {
        BaseFlowCoordinator.withLog([RequestRoute(.showList): route("List", PresentingManager.self)]).0
    }

    private func show(_ module: Coordinated, _ style: String = "inline", on coordinator: BaseFlowCoordinator) {
        coordinator.requestCoordination(
            .showList, payload: ["module": .string(module.rawValue), "style": .string(style)], from: .app)
    }

    @Test func inlineModalAndTabPresentationsAreKeptApart() throws {
        let coordinator = coordinator()
        show("launch", on: coordinator)
        show("items", "tab:Items", on: coordinator)
        show("settings", "tab:Settings", on: coordinator)
        show("signIn", "modal", on: coordinator)
        show("forgotPassword", on: coordinator)

        #expect(
            coordinator.router.state.description == """
                stack: launch
                tab 0* 'Items': items
                tab 1 'Settings': settings
                modal 1: signIn > forgotPassword
                top: forgotPassword
                """)
        #expect(coordinator.router.state.visibleStack == ["signIn", "forgotPassword"])
        try coordinator.dismiss()
        #expect(coordinator.router.state.visibleStack == ["items"])
        try coordinator.selectTab(1)
        #expect(coordinator.router.state.visibleStack == ["settings"])
    }

    @Test func backPopsThenDismissesTheModalAtItsRoot() throws {
        let coordinator = coordinator()
        show("home", on: coordinator)
        show("sheet", "modal", on: coordinator)
        show("sheetDetail", on: coordinator)

        try coordinator.back()
        #expect(coordinator.router.state.top == "sheet")
        try coordinator.back()
        #expect(coordinator.router.state.top == "home")
        #expect(throws: FlowError("nothing to go back to: 'home' is the first screen")) { try coordinator.back() }
    }

    @Test func dismissWithoutAModalIsAnError() {
        #expect(throws: FlowError("nothing to dismiss: no modal is presented")) { try coordinator().dismiss() }
    }

    @Test func selectingATabChangesTheTop() throws {
        let coordinator = coordinator()
        show("items", "tab:Items", on: coordinator)
        show("settings", "tab:Settings", on: coordinator)

        try coordinator.selectTab(1)

        #expect(coordinator.router.state.top == "settings")
        #expect(throws: FlowError("no tab 5: there are 2 tabs")) { try coordinator.selectTab(5) }
    }

    @Test func rootStyleReplacesTheStackAndReleasesTheOldManagers() {
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self)
        ])
        show("launch", on: coordinator)
        show("welcome", on: coordinator)

        show("home", "root", on: coordinator)

        #expect(coordinator.router.state.stack == ["home"])
        #expect(log.managers.map { $0.object == nil } == [true, true, false])
    }

    @Test func moduleActionsRequestCoordinationAsTheModule() throws {
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute(.showDetail, from: "list"): route("Detail", PresentingManager.self),
        ])
        let module = FlowModule(
            "list", actions: [.request("open", .showDetail, payload: ["module": "detail"])],
            coordination: coordinator)
        coordinator.present(module, style: .inline, by: nil)

        #expect(try module.perform("open") == .handled(manager: "Detail"))
        #expect(coordinator.router.state.top == "detail")
        #expect(throws: FlowError("module 'list' has no action 'close' (it has: open)")) { try module.perform("close") }
    }
}

extension PresentationTests {
    @Test func inlinePushLandsInTheTabItCameFrom() {
        let coordinator = coordinator()
        show("home", on: coordinator)
        show("items", "tab:Items", on: coordinator)

        show("itemDetail", on: coordinator)

        #expect(coordinator.router.state.tabs.first?.stack == ["items", "itemDetail"])
        #expect(coordinator.router.state.stack == ["home"])
    }
}

extension PresentationTests {
    @Test func parentPushesIntoTheVisibleTabOfItsChildButAChildKeepsToItsOwnTab() throws {
        let parent = coordinator()
        show("home", on: parent)
        let items = BaseFlowCoordinator(name: "items")
        let settings = BaseFlowCoordinator(name: "settings")
        parent.openChild(items, style: .tab("Items"))
        parent.openChild(settings, style: .tab("Settings"))
        show("itemList", on: items)
        show("settingsList", on: settings)

        show("itemDetail", on: parent)
        try parent.selectTab(1)
        show("itemHistory", on: items)

        #expect(
            parent.router.state.tabs.map(\.stack) == [["itemList", "itemDetail", "itemHistory"], ["settingsList"]])
        #expect(parent.router.state.stack == ["home"])
    }
}

extension PresentationTests {
    /// Signing out of a tabbed app: the root coordinator presents `.root` while a tab's module is visible.
    @Test func rootFromTheRootCoordinatorResetsTabsAndModalsAndReleasesTheirManagers() throws {
        let (parent, log) = BaseFlowCoordinator.withLog([
            RequestRoute(.showList): route("List", PresentingManager.self)
        ])
        show("home", on: parent)
        weak var items: BaseFlowCoordinator?
        weak var settings: BaseFlowCoordinator?
        do {
            let itemsTab = BaseFlowCoordinator(name: "items")
            let settingsTab = BaseFlowCoordinator(name: "settings")
            parent.openChild(itemsTab, style: .tab("Items"))
            parent.openChild(settingsTab, style: .tab("Settings"))
            show("itemList", on: itemsTab)
            show("settingsList", on: settingsTab)
            show("about", on: settingsTab)
            show("sheet", "modal", on: itemsTab)
            items = itemsTab
            settings = settingsTab
        }
        try parent.dismiss()
        try parent.selectTab(1)
        #expect(parent.router.state.top == "about")

        show("welcome", "root", on: parent)

        #expect(parent.router.state == PresentationState(stack: ["welcome"], top: "welcome"))
        #expect(parent.children.isEmpty)
        #expect(items == nil)
        #expect(settings == nil)
        #expect(log.managers.map { $0.object == nil } == [true, true, true, true, true, false])
    }

    @Test func rootResetsModalsTheRootCoordinatorOpened() {
        let coordinator = coordinator()
        show("welcome", on: coordinator)
        show("signIn", "modal", on: coordinator)

        show("home", "root", on: coordinator)

        #expect(coordinator.router.state == PresentationState(stack: ["home"], top: "home"))
    }

    @Test func rootFromATabsCoordinatorReplacesOnlyThatTabsStack() throws {
        let parent = coordinator()
        show("home", on: parent)
        let items = BaseFlowCoordinator(name: "items")
        let settings = BaseFlowCoordinator(name: "settings")
        parent.openChild(items, style: .tab("Items"))
        parent.openChild(settings, style: .tab("Settings"))
        show("itemList", on: items)
        show("itemDetail", on: items)
        show("settingsList", on: settings)
        try parent.selectTab(1)

        show("itemsHome", "root", on: items)

        #expect(parent.router.state.tabs.map(\.stack) == [["itemsHome"], ["settingsList"]])
        #expect(parent.router.state.stack == ["home"])
        #expect(parent.router.state.top == "settingsList")
    }

    @Test func rootFromAModalChildReplacesOnlyItsModalsStack() {
        let parent = coordinator()
        show("home", on: parent)
        let signUp = BaseFlowCoordinator(name: "signUp")
        parent.openChild(signUp, style: .modal)
        show("terms", on: signUp)
        show("form", on: signUp)

        show("done", "root", on: signUp)

        #expect(parent.router.state == PresentationState(stack: ["home"], modals: [["done"]], top: "done"))
        #expect(parent.children.count == 1)
    }
}
