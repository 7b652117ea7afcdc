/// What a coordinator tree tracks about its managers besides what holds them (modules, and each
/// coordinator's `working` and `starting`), for managers that are not ``FlowManager``s (which keep their
/// own): while someone listens to events, the names they are reported under, and who waits for their
/// results.
///
/// It lives in the tree's ``Router``, the one object the whole tree shares.
struct ManagerLedger {
    /// The names ``FlowEvent/managerEnded(_:reason:)`` reports, recorded only while someone listens, for
    /// managers that are not ``FlowManager``s (which keep their own, ``FlowManager/reportedName``).
    var names: [ObjectIdentifier: String] = [:]
    /// Who asked to hear how a manager's request ends (``BaseFlowCoordinator/requestCoordination(_:from:onResult:)``),
    /// by manager, and the result a manager finished with when it gave one, for managers that are not
    /// ``FlowManager``s (which keep their own, ``FlowManager/resultHandler``).
    var resultHandlers: [ObjectIdentifier: @MainActor (FlowResult) -> Void] = [:]
    var results: [ObjectIdentifier: FlowResult] = [:]

    /// Keeps `handler` for how `manager`'s request ends.
    @MainActor
    mutating func awaitResult(
        of manager: any RequestCoordinatorManager, _ handler: @escaping @MainActor (FlowResult) -> Void
    ) {
        if let flow = manager as? FlowManager {
            flow.resultHandler = handler
        } else {
            resultHandlers[ObjectIdentifier(manager)] = handler
        }
    }

    /// Keeps `result` for when `manager` ends, if someone waits for its request's result.
    @MainActor
    mutating func give(_ result: FlowResult, to manager: any RequestCoordinatorManager) {
        if let flow = manager as? FlowManager {
            if flow.resultHandler != nil { flow.givenResult = result }
            return
        }
        guard !resultHandlers.isEmpty else { return }
        let id = ObjectIdentifier(manager)
        if resultHandlers[id] != nil { results[id] = result }
    }

    /// Whether someone still waits for the result of `manager`'s request: it has not ended.
    @MainActor
    func owesResult(_ manager: any RequestCoordinatorManager) -> Bool {
        if let flow = manager as? FlowManager { return flow.resultHandler != nil }
        return resultHandlers[ObjectIdentifier(manager)] != nil
    }

    /// Takes the handler of `manager`'s request, if one waits, with the result to hand it.
    mutating func takeResult(of manager: any RequestCoordinatorManager, ending reason: ManagerEndReason)
        -> (handler: @MainActor (FlowResult) -> Void, result: FlowResult)?
    {
        guard !resultHandlers.isEmpty else { return nil }
        let id = ObjectIdentifier(manager)
        let given = results.isEmpty ? nil : results.removeValue(forKey: id)
        guard let handler = resultHandlers.removeValue(forKey: id) else { return nil }
        return (handler, given ?? Self.result(ending: reason))
    }

    /// Takes the handler of `flow`'s request, if one waits, with the result to hand it.
    @MainActor
    static func takeResult(of flow: FlowManager, ending reason: ManagerEndReason)
        -> (handler: @MainActor (FlowResult) -> Void, result: FlowResult)?
    {
        guard let handler = flow.resultHandler else { return nil }
        let given = flow.givenResult
        flow.resultHandler = nil
        flow.givenResult = nil
        return (handler, given ?? result(ending: reason))
    }

    /// The result of a manager that ended for `reason` without giving one.
    private static func result(ending reason: ManagerEndReason) -> FlowResult {
        reason == .finished ? .completed(.null) : .cancelled
    }

    /// The name `manager` is reported under: as recorded when its request was handled, else its type's.
    @MainActor
    func name(of manager: any RequestCoordinatorManager) -> String {
        Self.name(of: manager, in: names)
    }

    /// The name `manager` is reported under, looking in `names` for one that is not a ``FlowManager``.
    @MainActor
    static func name(of manager: any RequestCoordinatorManager, in names: [ObjectIdentifier: String]) -> String {
        if let flow = manager as? FlowManager, let name = flow.reportedName { return name }
        if !names.isEmpty, let name = names[ObjectIdentifier(manager)] { return name }
        return String(describing: type(of: manager))
    }
}

extension Router {
    /// Whether a presented module holds `manager`.
    ///
    /// Plain loops rather than `contains(where:)`: a main-actor closure handed to the standard library is
    /// checked for its executor on every call, which the request path cannot afford.
    func holds(_ manager: any RequestCoordinatorManager) -> Bool {
        let target = ObjectIdentifier(manager)
        if Self.stack(main.stack, holds: target) { return true }
        for tab in tabs where Self.stack(tab.stack, holds: target) { return true }
        for modal in modals where Self.stack(modal.stack, holds: target) { return true }
        return false
    }

    private static func stack(_ stack: [FlowModule], holds target: ObjectIdentifier) -> Bool {
        for module in stack {
            if let manager = module.manager, ObjectIdentifier(manager) == target { return true }
        }
        return false
    }
}
