import FlowKit
import Testing

/// Screens that observe the context refresh when its provider announces a change.
@MainActor
struct ContextChangeTests {
    @Test func observingModulesInTheWholeTreeGetTheNewContext() {
        let session = SessionService()
        let parent = BaseFlowCoordinator(
            mapping: [RequestRoute(.showList): route("List", PresentingManager.self)], services: [session])
        parent.start()
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        let child = BaseFlowCoordinator(name: "tab")
        parent.openChild(child, style: .tab("Settings"))
        child.requestCoordination(.showList, payload: ["module": "settings"], from: .app)
        var seen: [String: String] = [:]
        for module in parent.router.modules where module.name == "settings" {
            module.onContextChange = { module, context in seen[module.name.rawValue] = context["user"]?.string }
        }

        session.context = CoordinatorContext(["user": "grace"])
        parent.contextDidChange()

        #expect(seen == ["settings": "grace"], "only observers are told, through the child's own coordinator")
        #expect(parent.router.modules.first?.content["context"]?["user"] == "ada", "others keep what they showed")
    }

    @Test func callingOnAChildReachesTheWholeTree() {
        let parent = BaseFlowCoordinator(
            mapping: [RequestRoute(.showList): route("List", PresentingManager.self)], services: [SessionService()])
        parent.start()
        parent.requestCoordination(.showList, payload: ["module": "home"], from: .app)
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .modal)
        var calls = 0
        parent.router.modules.first?.onContextChange = { _, _ in calls += 1 }

        child.contextDidChange()

        #expect(calls == 1)
    }
}
