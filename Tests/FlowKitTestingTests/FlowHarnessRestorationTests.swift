import FlowKit
import FlowKitTesting
import Testing

/// `FlowHarness.snapshot()` and `restore(_:)`: a plugin's screens and services' state, saved and restored.
@MainActor
struct FlowHarnessRestorationTests {
    /// A harness routing `screen.show` and `form.show` with a `Profile` service, not started.
    private func harness(routingForms: Bool = true) -> (FlowHarness, ProfileService?) {
        let harness = FlowHarness(plugin: plugin)
        harness.route("screen.show", to: "Screen")
        if routingForms { harness.route("form.show", to: "Screen") }
        return (harness, harness.addService(named: "Profile") as? ProfileService)
    }

    /// Home, a detail pushed on it, and a modal form; the profile renamed to grace.
    private func walked() throws -> FlowHarness {
        let (harness, profile) = harness()
        harness.send("screen.show", payload: ["module": "home"])
        harness.send("screen.show", from: "home", payload: ["module": "detail"])
        try #require(profile).name = "grace"
        harness.send("form.show", from: "detail", payload: ["module": "form", "style": "modal"])
        return harness
    }

    @Test func snapshotRestoresIntoANewHarnessWithTheServicesState() throws {
        let saved = try walked().snapshot()
        let (next, profile) = harness()

        let report = try next.restore(saved)

        #expect(report.isComplete, "\(report)")
        #expect(next.state == PresentationState(stack: ["home", "detail"], modals: [["form"]], top: "form"))
        #expect(try #require(profile).name == "grace")
        #expect(next.topModule?.content["user"] == "grace", "the service had its state before the steps replayed")
        #expect(saved.services == ["ProfileService": ["name": "grace"]])
    }

    @Test func restoreReportsAStepThatNoLongerRoutes() throws {
        let saved = try walked().snapshot()
        let (next, _) = harness(routingForms: false)

        let report = try next.restore(saved)

        #expect(report.problems.map(\.reason) == [.unhandled])
        #expect(report.problems.first?.request?.request.name == "form.show")
        #expect(next.state == PresentationState(stack: ["home", "detail"], top: "detail"))
        #expect(next.unrouted.map(\.name) == ["form.show"])
    }

    @Test func restoringSavedServiceStateIntoAStartedHarnessIsAnIssue() throws {
        let harness = try walked()
        let saved = harness.snapshot()
        try harness.dismiss()

        withKnownIssue {
            _ = try? harness.restore(saved)
        } matching: { issue in
            issue.description.contains("the harness has started, so its services keep their state")
        }
        #expect(harness.state.modals == [["form"]], "the screens are restored all the same")
    }
}

// MARK: - Test Helpers

private let plugin = PluginDescription(
    name: "profile", version: "1.0.0", managers: [ManagerFactory("Screen", ScreenManager.self)],
    services: [ServiceFactory("Profile") { ProfileService() }])

/// Presents the payload's `module` (modally when its `style` is "modal"), showing the context's user.
private final class ScreenManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let screen = self.module(
            Coordinated(request.payload["module"]?.string ?? "screen"), content: ["user": context["user"] ?? .null])
        return .present(screen, request.payload["style"]?.string == "modal" ? .modal : .inline)
    }
}

/// Provides the context `{"user": name}`; its name survives a snapshot.
@MainActor
private final class ProfileService: ContextProviderProtocol, StateHandoff {
    var name = "ada"
    var context: CoordinatorContext { CoordinatorContext(["user": .string(name)]) }
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
    func exportState() -> JSONValue { ["name": .string(name)] }
    func importState(_ state: JSONValue) { name = state["name"]?.string ?? "ada" }
}
