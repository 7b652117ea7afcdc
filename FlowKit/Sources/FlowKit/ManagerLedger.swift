/// What a coordinator tree tracks about its managers besides the modules that hold them and each
/// coordinator's `working`: which managers are being started, and, while someone listens to events, the
/// names they are reported under.
///
/// It lives in the tree's ``Router``, the one object the whole tree shares.
struct ManagerLedger {
    /// The managers whose `start` is running, innermost last. The coordinator handling a request holds its
    /// manager until `start` returns, so a manager that finishes or loses its modules meanwhile has not
    /// ended yet.
    var starting: [ObjectIdentifier] = []
    /// The names ``FlowEvent/managerEnded(_:reason:)`` reports, recorded only while someone listens.
    var names: [ObjectIdentifier: String] = [:]

    /// The name `manager` is reported under: as recorded when its request was handled, else its type's.
    func name(of manager: any RequestCoordinatorManager) -> String {
        if !names.isEmpty, let name = names[ObjectIdentifier(manager)] { return name }
        return String(describing: type(of: manager))
    }
}

extension Router {
    /// Whether a presented module holds `manager`, or its `start` is running.
    func holds(_ manager: any RequestCoordinatorManager) -> Bool {
        if !ledger.starting.isEmpty, ledger.starting.contains(ObjectIdentifier(manager)) { return true }
        if main.stack.contains(where: { $0.manager === manager }) { return true }
        for tab in tabs where tab.stack.contains(where: { $0.manager === manager }) { return true }
        for modal in modals where modal.stack.contains(where: { $0.manager === manager }) { return true }
        return false
    }
}
