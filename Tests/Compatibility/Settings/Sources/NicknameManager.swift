import FlowKit

/// Handles `settings.nickname`: a child flow, shown modally, whose form ends it with a result; the result
/// is shown by `settings.nicknameShown`. A compatibility fixture: it switches over `FlowResult`, which
/// FlowKit 1.x keeps frozen, without `@unknown default`.
final class NicknameManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(
            name: "nickname",
            mapping: [RequestRoute(.nicknameForm): ManagerFactory("NicknameForm", NicknameFormManager.self)])
        coordinator.openChild(flow, style: .modal, onResult: { [weak self] in self?.flowFinished($0) })
        let outcome = flow.requestCoordination(.nicknameForm, payload: request.payload, from: .settings)
        guard outcome.isHandled else {
            flow.finish(with: .failed(FlowError("could not show the nickname form: \(outcome)")))
            throw FlowError("could not show the nickname form: \(outcome)")
        }
        return .working
    }

    private func flowFinished(_ result: FlowResult) {
        let shown: JSONValue
        switch result {
        case .completed(let value): shown = ["nickname": value["nickname"] ?? .null, "result": "completed"]
        case .cancelled: shown = ["nickname": .null, "result": "cancelled"]
        case .failed(let error): shown = ["nickname": .null, "result": .string("failed: \(error)")]
        }
        let coordinator = self.coordinator
        finish(with: result)
        _ = coordinator.requestCoordination(.showNickname, payload: shown, from: .settings)
    }
}

/// The nickname form, in the child flow: `save {"nickname": ...}` completes the flow with it, `cancel`
/// cancels it.
final class NicknameFormManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let form = self.module(
            .nicknameForm, title: "Nickname", content: ["nickname": request.payload["nickname"] ?? .null],
            actions: [
                ModuleAction("save", summary: #"finish with {"nickname": "..."}"#) { module, payload in
                    (module.coordination as? any FlowCoordinator)?.finish(with: .completed(payload))
                    return nil
                },
                ModuleAction("cancel", summary: "finish without a nickname") { module, _ in
                    (module.coordination as? any FlowCoordinator)?.finish(with: .cancelled)
                    return nil
                },
            ])
        return .present(form, .inline)
    }
}

/// Handles `settings.nicknameShown`: the result of the nickname flow, pushed inline.
final class NicknameShownManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module(.nickname, title: "Nickname", content: request.payload), .inline)
    }
}
