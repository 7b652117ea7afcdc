import Testing

@testable import FlowKit

/// While a restore runs, ``ModuleLookup`` keeps the modules on screen without retaining them (`unowned(unsafe)`),
/// on the promise that it reads a module only while a stack of the router holds it. These steps break that promise
/// if any way a module leaves the screen forgets to tell the lookup: a module shown later than the one an action
/// step is for (in a modal, above the main stack) goes and is freed, and is still where the lookup looks first.
/// Run under `--sanitize=address`, a read of it is a use after free; without the sanitizer, the action would be
/// performed on a freed module, or the wrong one.
@MainActor
struct ModuleLookupLifetimeTests {
    private let routes: RequestCoordinatorMappingDictionary = [
        RequestRoute(.mainSettings): route("MainSettings", LabelledSettingsManager.self),
        RequestRoute(.modalSettings): route("ModalSettings", LabelledSettingsManager.self),
        RequestRoute(.reset): route("Reset", ResetManager.self),
    ]

    /// A restorable root on `routes`, started, that logs which `settings` performed `mark`.
    private func app() -> (BaseFlowCoordinator, MarkLog) {
        let log = MarkLog()
        let coordinator = BaseFlowCoordinator(name: "app", mapping: routes)
        coordinator.isRestorable = true
        coordinator.setDependency(.markLog, log)
        coordinator.start()
        return (coordinator, log)
    }

    /// `settings` on the main stack, then a `settings` of the same coordinator in a modal over it, taken away as
    /// `leaving` does; then `mark` of `settings`, which is the main stack's now.
    @Test(arguments: [Leaving.dismiss, .back, .reset])
    func anActionStepIsPerformedOnTheModuleStillShownNotOneThatWentAndWasFreed(leaving: Leaving) throws {
        var steps = [
            FlowSnapshot.Step(CoordinationRequest(.mainSettings, payload: ["label": "main"]), from: "home"),
            FlowSnapshot.Step(CoordinationRequest(.modalSettings, payload: ["label": "modal"]), from: "settings"),
        ]
        var stack: [FlowSnapshot.Screen] = [.init("settings", step: 0)]
        switch leaving {
        case .dismiss: steps.append(.init(action: "dismiss", of: "settings"))
        case .back: steps.append(.init(action: "back", of: "settings"))
        case .reset:
            // The whole presentation goes for `welcome`; a new `settings` is pushed onto it.
            steps.append(.init(CoordinationRequest(.reset), from: "settings"))
            steps.append(.init(CoordinationRequest(.mainSettings, payload: ["label": "main again"]), from: "home"))
            stack = [.init("welcome", step: 2), .init("settings", step: 3)]
        }
        steps.append(.init(action: "mark", of: "settings"))
        let crafted = FlowSnapshot(steps: steps, presentation: .init(stack: stack))
        let (restoring, log) = app()

        let report = try restoring.restore(crafted)

        #expect(report.isComplete, "\(report.summary)")
        #expect(log.marked == [leaving == .reset ? "main again" : "main"])
        #expect(restoring.router.state.stack == stack.map(\.module))
        #expect(restoring.router.state.modals.isEmpty)
    }

    enum Leaving: CustomTestStringConvertible {
        /// The modal's `dismiss` action dismisses it.
        case dismiss
        /// The modal's `back` action goes back, which dismisses a modal's last screen.
        case back
        /// A request makes a new root: every stack is emptied.
        case reset

        var testDescription: String {
            switch self {
            case .dismiss: "dismissed"
            case .back: "gone back from"
            case .reset: "replaced by a new root"
            }
        }
    }
}

extension CoordinationRequestName {
    fileprivate static let mainSettings: Self = "lookup.mainSettings"
    fileprivate static let modalSettings: Self = "lookup.modalSettings"
    fileprivate static let reset: Self = "lookup.reset"
}

extension TypedDependencyKey<MarkLog> {
    fileprivate static let markLog = Self("lookup.markLog")
}

/// The labels of the `settings` modules that performed `mark`, in order.
@MainActor
private final class MarkLog {
    var marked: [String] = []
}

/// Shows a `settings` labelled by the payload's `label`: on the main stack for `lookup.mainSettings`, in a modal
/// for `lookup.modalSettings`. Its actions: `mark` logs the label; `dismiss` and `back` do those to the
/// presentation.
@MainActor
private final class LabelledSettingsManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let label = request.payload["label"]?.string ?? ""
        let log = coordinator.dependencies[.markLog]
        let settings = self.module(
            "settings",
            actions: [
                ModuleAction("mark") { _, _ in
                    log?.marked.append(label)
                    return nil
                },
                ModuleAction("dismiss") { settings, _ in
                    try? (settings.coordination as? BaseFlowCoordinator)?.dismiss()
                    return nil
                },
                ModuleAction("back") { settings, _ in
                    try? (settings.coordination as? BaseFlowCoordinator)?.back()
                    return nil
                },
            ])
        return .present(settings, request.name == .modalSettings ? .modal : .inline)
    }
}

/// Makes `welcome` the root: every stack is emptied.
@MainActor
private final class ResetManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module("welcome"), .root)
    }
}
