/// What a coordinator tree tracks about its managers besides what holds them (modules, and each
/// coordinator's `working` and `starting`): while someone listens to events, the names they are
/// reported under.
///
/// It lives in the tree's ``Router``, the one object the whole tree shares.
struct ManagerLedger {
    /// The names ``FlowEvent/managerEnded(_:reason:)`` reports, recorded only while someone listens.
    var names: [ObjectIdentifier: String] = [:]

    /// The name `manager` is reported under: as recorded when its request was handled, else its type's.
    func name(of manager: any RequestCoordinatorManager) -> String {
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
