/// Manager lifetimes: when the tree lets a manager go, it tells it why, once.
///
/// A manager is held by whatever keeps it alive in the tree: a presented module it built, a coordinator's
/// `working` list, or the coordinator handling its request while its `start` runs. Every path that drops a
/// hold (a finish, a back or dismiss, a new root, a child flow finishing, a stop, a reload) asks whether
/// anything else still holds the manager; when nothing does, the manager ends: its ``FlowManager`` tasks are
/// cancelled, ``FlowEvent/managerEnded(_:reason:)`` is reported and its
/// ``RequestCoordinatorManager/didEnd(_:)`` is called.
extension BaseFlowCoordinator {
    /// Applies `step` for `manager` after its `start` returned: typically a manager that answered
    /// ``ManagerStep/working`` and has now, after awaiting something, come to what it would have returned.
    ///
    /// - ``ManagerStep/present(_:_:)`` presents the module; the manager stops working and lives while the
    ///   module is shown, as if `start` had returned the step.
    /// - ``ManagerStep/finished`` finishes the manager, see ``finish(_:)``.
    /// - ``ManagerStep/working`` keeps a manager that is held otherwise (by a module) working as well.
    ///
    /// - Returns: `false`, doing nothing, when nothing holds `manager` any more: it has ended (dismissed,
    ///   its coordinator finished) and no longer belongs to this flow.
    @discardableResult
    public func apply(_ step: ManagerStep, for manager: any RequestCoordinatorManager) -> Bool {
        guard holds(manager) else { return false }
        switch step {
        case .present(let module, let style):
            removeWorking(manager)
            present(module, style: style, by: manager, flow: manager as? FlowManager, sink: sink)
        case .working:
            if !working.contains(where: { $0 === manager }) { addWorking(manager) }
        case .finished:
            finish(manager)
        }
        return true
    }

    /// Ends, with ``ManagerEndReason/replaced``, the managers of this coordinator and its descendants that
    /// work in the background and for which `isReplaced` is true.
    ///
    /// A manager works in the background when it answered ``ManagerStep/working``, has no module
    /// presented, and is a ``FlowManager`` with tasks from ``FlowManager/task(_:)`` running. A host calls
    /// this after reloading a plugin, with `isReplaced` picking the previous generations' managers, so
    /// that their code stops running: the new generation serves the next request. Managers with a screen,
    /// and working managers that wait without a task (for a child flow's result, say), keep running
    /// their old code until they end otherwise.
    ///
    /// - Returns: How many managers ended.
    @discardableResult
    public func replaceBackgroundManagers(where isReplaced: (any RequestCoordinatorManager) -> Bool) -> Int {
        // Each coordinator after its children, they in the order they were opened, as calls per level took them.
        var count = 0
        forEachAfterItsDescendants { count += $0.replaceOwnBackgroundManagers(where: isReplaced) }
        return count
    }

    /// What ``replaceBackgroundManagers(where:)`` does for this coordinator's own managers.
    private func replaceOwnBackgroundManagers(where isReplaced: (any RequestCoordinatorManager) -> Bool) -> Int {
        let candidates = working  // `isReplaced` is the caller's code: it must not overlap an access.
        let replaced = candidates.filter { manager in
            guard let flow = manager as? FlowManager, flow.runningTaskCount > 0 else { return false }
            return !treeRouter.holds(manager) && isReplaced(manager)
        }
        guard !replaced.isEmpty else { return 0 }
        for manager in replaced { removeWorking(manager) }
        endReleased(replaced, reason: .replaced, sink: sink)
        return replaced.count
    }

    // MARK: - Internals

    /// Whether anything in this tree holds `manager`: a presented module, a coordinator's `working`, or the
    /// coordinator running its `start`.
    func holds(_ manager: any RequestCoordinatorManager) -> Bool {
        if let flow = manager as? FlowManager { return flow.holdCount > 0 }
        if treeRouter.holds(manager) { return true }
        // Only a child reaches for the root: `rootCoordinator` retains, and every retain of a coordinator
        // (which modules reference weakly) takes the slow path.
        if hasParent { return rootCoordinator.holdsOtherwise(ObjectIdentifier(manager)) }
        if working.isEmpty, starting.isEmpty, children.isEmpty { return false }
        return holdsOtherwise(ObjectIdentifier(manager))
    }

    /// Whether this coordinator or a descendant holds the manager `id` working or while it starts.
    private func holdsOtherwise(_ id: ObjectIdentifier) -> Bool {
        // Depth first, with a list of the coordinators still to look at rather than a call per level.
        var pending: [BaseFlowCoordinator] = [self]
        while let coordinator = pending.popLast() {
            if coordinator.starting.contains(id) { return true }
            for held in coordinator.working where ObjectIdentifier(held) == id { return true }
            pending.append(contentsOf: coordinator.children.reversed())
        }
        return false
    }

    /// Adds `manager` to those working for this coordinator: a hold on it.
    func addWorking(_ manager: any RequestCoordinatorManager) {
        working.append(manager)
        if let flow = manager as? FlowManager {
            flow.holdCount += 1
            flow.workingCount += 1
        }
    }

    /// Removes `manager` from those working for this coordinator.
    ///
    /// - Returns: Whether it was working.
    @discardableResult
    func removeWorking(_ manager: any RequestCoordinatorManager) -> Bool {
        guard !working.isEmpty else { return false }
        guard let flow = manager as? FlowManager else {
            let count = working.count
            working.removeAll { $0 === manager }
            return working.count != count
        }
        // A restored snapshot can leave thousands working; one that finishes is found from the nearer end,
        // and looked for again only while it has working entries left (a factory that made the same manager
        // for two requests, or another coordinator it works for): its screens, which hold it too, are no
        // reason to walk the list.
        guard let index = working.indexFromBothEnds(where: { $0 === manager }) else { return false }
        working.remove(at: index)
        flow.holdCount -= 1
        flow.workingCount -= 1
        if flow.workingCount > 0 {
            let count = working.count
            working.removeAll { $0 === manager }
            flow.holdCount -= count - working.count
            flow.workingCount -= count - working.count
        }
        return true
    }

    /// Removes every manager working for this coordinator.
    ///
    /// - Returns: Them, in the order they started working.
    func takeWorking() -> [any RequestCoordinatorManager] {
        let taken = working
        working.removeAll()
        for manager in taken {
            if let flow = manager as? FlowManager {
                flow.holdCount -= 1
                flow.workingCount -= 1
            }
        }
        return taken
    }

    /// Ends, in order and once each, those of `managers` that nothing holds any more.
    func endReleased(
        _ managers: [any RequestCoordinatorManager], reason: ManagerEndReason, sink: EventSink?
    ) {
        // A set: a coordinator stopping, or a root replacing a restored snapshot's screens, lets go of
        // thousands at once.
        var seen = Set<ObjectIdentifier>()
        for manager in managers where seen.insert(ObjectIdentifier(manager)).inserted {
            endIfReleased(manager, reason: reason, sink: sink)
        }
    }

    /// Ends `manager` for `reason` unless something still holds it.
    func endIfReleased(
        _ manager: any RequestCoordinatorManager, reason: ManagerEndReason, sink: EventSink?
    ) {
        endIfReleased(manager, flow: manager as? FlowManager, reason: reason, sink: sink)
    }

    /// Ends `flow` for `reason` unless something still holds it: what ``endIfReleased(_:reason:sink:)``
    /// does, for a ``FlowManager``, without going through the protocol.
    func endIfReleased(_ flow: FlowManager, reason: ManagerEndReason, sink: EventSink?) {
        guard flow.holdCount == 0, flow.recordEnd(reason) else { return }
        sink?(
            .managerEnded(
                flow.reportedName ?? ManagerLedger.name(of: flow, in: treeRouter.ledger.names), reason: reason))
        flow.didEnd(reason)
        if let (handler, result) = ManagerLedger.takeResult(of: flow, ending: reason) { handler(result) }
    }

    /// Ends `manager`, which is `flow` when it is a ``FlowManager``, for `reason` unless something still
    /// holds it.
    func endIfReleased(
        _ manager: any RequestCoordinatorManager, flow: FlowManager?, reason: ManagerEndReason,
        sink: EventSink?
    ) {
        if let flow { return endIfReleased(flow, reason: reason, sink: sink) }
        guard !holds(manager) else { return }
        if let sink {
            sink(.managerEnded(ManagerLedger.name(of: manager, in: treeRouter.ledger.names), reason: reason))
        }
        if !treeRouter.ledger.names.isEmpty { treeRouter.ledger.names[ObjectIdentifier(manager)] = nil }
        manager.didEnd(reason)
        if let (handler, result) = treeRouter.ledger.takeResult(of: manager, ending: reason) { handler(result) }
    }

    /// Reports that a task `manager` started failed, and finishes the manager if it is still working: it
    /// was waiting for the task, and nothing else would ever end it.
    func taskFailed(_ manager: FlowManager, _ error: any Error) {
        let failure = FlowError(wrapping: error)
        sink?(.managerTaskFailed(ManagerLedger.name(of: manager, in: treeRouter.ledger.names), error: failure))
        // Whoever asked for its request hears that it failed, as when `start` throws, not `.completed(null)`.
        if working.contains(where: { $0 === manager }) { finish(manager, with: .failed(failure)) }
    }
}
